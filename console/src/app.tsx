import { useEffect, useState } from 'preact/hooks';
import { signOut, whenSignedOut, whoAmI, type Me } from './api';
import { AskView } from './ask';
import { AuditView } from './audit';
import { ChatView } from './chat';
import { ConversationsView } from './conversations';
import { DocumentsView } from './documents';
import { HealthView } from './health';
import { hrefOf, navigate, SECTIONS, useSection, type Section } from './route';
import { SearchView } from './search';
import { SignInView } from './signIn';
import { UploadView } from './upload';

type Session =
  { state: 'checking' } | { state: 'signed-out'; notice: string | null } | { state: 'signed-in'; me: Me };

/** The console: the sign-in form until a session exists, then the sections the user may use. */
export function App() {
  const [session, setSession] = useState<Session>({ state: 'checking' });
  const [conversationId, setConversationId] = useState<string | null>(null);
  const section = useSection();

  useEffect(() => {
    whenSignedOut(() =>
      setSession({ state: 'signed-out', notice: 'Your session has ended: sign in again.' }),
    );
    whoAmI()
      .then((me) => setSession(me ? { state: 'signed-in', me } : { state: 'signed-out', notice: null }))
      .catch(() => setSession({ state: 'signed-out', notice: null }));
  }, []);
  useEffect(() => {
    const label = SECTIONS.find((item) => item.path === section)?.label ?? 'Console';
    document.title = `${label} — Archivist`;
  }, [section]);

  if (session.state === 'checking') {
    return (
      <main id="main">
        <p role="status">Loading…</p>
      </main>
    );
  }
  if (session.state === 'signed-out') {
    return <SignInView notice={session.notice} onSignedIn={(me) => setSession({ state: 'signed-in', me })} />;
  }

  const { me } = session;
  const allowed = SECTIONS.filter((item) => me.admin || !item.admin);
  const current: Section = allowed.some((item) => item.path === section) ? section : 'documents';
  const go = (target: Section) => (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(target);
    document.getElementById('main')?.focus();
  };
  const openConversation = (id: string): void => {
    setConversationId(id);
    navigate('chat');
  };

  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <p class="brand">Archivist</p>
        <nav aria-label="Sections">
          <ul>
            {allowed.map((item) => (
              <li key={item.path}>
                <a
                  href={hrefOf(item.path)}
                  aria-current={item.path === current ? 'page' : undefined}
                  onClick={go(item.path)}
                >
                  {item.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            {me.name}
            {me.admin ? ' (administrator)' : ''}
          </span>
          <button
            type="button"
            class="secondary"
            onClick={() =>
              void signOut().then(() => setSession({ state: 'signed-out', notice: 'You have signed out.' }))
            }
          >
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        {current === 'documents' && <DocumentsView />}
        {/* Kept while other sections show, so that uploads in progress go on and stay listed. */}
        <div hidden={current !== 'upload'}>
          <UploadView />
        </div>
        {current === 'ask' && <AskView />}
        {current === 'search' && <SearchView />}
        {current === 'chat' && (
          <ChatView conversationId={conversationId} onConversation={setConversationId} />
        )}
        {current === 'conversations' && <ConversationsView onOpen={openConversation} />}
        {current === 'audit' && <AuditView />}
        {current === 'health' && <HealthView />}
      </main>
    </>
  );
}
