// The live preview under the editor: the Markdown as it will look, and the content warning
// above it.
import { useId } from 'react';
import { Html } from '../content/Html';
import { previewMarkdown } from '../content/markdown';
import { strings } from '../strings';

const t = strings.compose;

export function Preview({ text, contentWarning }: { text: string; contentWarning: string }) {
  const id = useId();
  return (
    <section className="section" aria-labelledby={id}>
      <div className="section__header">
        <h2 id={id}>{t.preview}</h2>
        <p className="section__aside">{t.markdownHint}</p>
      </div>
      <div className="card compose__preview" data-testid="compose-preview">
        {contentWarning.trim() && <p className="compose__preview-cw">{contentWarning}</p>}
        {text.trim() ? <Html className="post__content" html={previewMarkdown(text)} /> : <p className="compose__preview-empty">{t.previewEmpty}</p>}
      </div>
    </section>
  );
}
