// Entry point of the renderer: mounts the app into #root and brings in the one stylesheet.
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { adoptTokenFromAddress } from './headlessToken';
import { STRINGS_LANG } from './strings';
import './styles.css';
import './styles/frame.css';
import './styles/controls.css';
import './styles/lists.css';
import './styles/posts.css';
import './styles/views.css';
import './styles/polls.css';
import './styles/emoji.css';
import './styles/icons.css';

document.documentElement.lang = STRINGS_LANG;
// Before the app reads its route from the fragment.
adoptTokenFromAddress();

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
