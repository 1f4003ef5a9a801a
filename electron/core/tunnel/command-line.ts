// The tunnel command the author types in Settings, split into a program and its arguments the
// way a POSIX shell splits words — spaces separate, '…' and "…" quote, \ escapes — and nothing
// more: no variables, globs, pipes or redirections. It is run without a shell, so nothing in
// it is ever interpreted by one.
import { BadInputError } from '../errors';

export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else word += c;
      continue;
    }
    if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && (line[i + 1] === '"' || line[i + 1] === '\\')) word += line[++i];
      else word += c;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new BadInputError('The tunnel command ends with a lone \\.');
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new BadInputError(`The tunnel command has an unclosed ${quote === '"' ? 'double' : 'single'} quote.`);
  if (inWord) words.push(word);
  if (words.length === 0) throw new BadInputError('Type the command that starts your tunnel, for example: cloudflared tunnel --url http://127.0.0.1:4861');
  return words;
}
