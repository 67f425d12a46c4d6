import { useEffect, useState } from 'preact/hooks';

/** The console's sections; each is a path under /console/ (the server answers index.html for all). */
export const SECTIONS = [
  { path: 'documents', label: 'Documents', admin: false },
  { path: 'upload', label: 'Upload', admin: false },
  { path: 'ask', label: 'Ask', admin: false },
  { path: 'search', label: 'Search', admin: false },
  { path: 'chat', label: 'Chat', admin: false },
  { path: 'conversations', label: 'Conversations', admin: false },
  { path: 'audit', label: 'Audit', admin: true },
  { path: 'health', label: 'Health', admin: true },
] as const;

export type Section = (typeof SECTIONS)[number]['path'];

const BASE = '/console/';

const sectionOf = (pathname: string): Section => {
  const name = pathname.startsWith(BASE) ? pathname.slice(BASE.length).split('/')[0] : '';
  return SECTIONS.find((section) => section.path === name)?.path ?? 'documents';
};

export const hrefOf = (section: Section): string => `${BASE}${section}`;

/** Goes to a section without reloading the page (the browser's history keeps it). */
export function navigate(section: Section): void {
  if (sectionOf(location.pathname) === section && location.pathname !== BASE) return;
  history.pushState(null, '', hrefOf(section));
  dispatchEvent(new PopStateEvent('popstate'));
}

/** The section the address names, following the back and forward buttons. */
export function useSection(): Section {
  const [section, setSection] = useState(() => sectionOf(location.pathname));
  useEffect(() => {
    const follow = (): void => setSection(sectionOf(location.pathname));
    addEventListener('popstate', follow);
    return () => removeEventListener('popstate', follow);
  }, []);
  return section;
}
