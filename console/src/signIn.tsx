import { useState } from 'preact/hooks';
import { describeError, signIn, type Me } from './api';
import { ErrorAlert } from './errorAlert';

/** The sign-in form: a user of the Assistant API (`archivist users add`), by name and password. */
export function SignInView(props: { onSignedIn: (me: Me) => void; notice: string | null }) {
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      props.onSignedIn(await signIn(user.trim(), password));
    } catch (failure) {
      setError(describeError(failure));
      setBusy(false);
    }
  };

  return (
    <main id="main" class="signin">
      <h1>Sign in to Archivist</h1>
      {props.notice && <p role="status">{props.notice}</p>}
      <form class="panel" onSubmit={(event) => void submit(event)}>
        <label>
          User name
          <input
            name="username"
            autocomplete="username"
            required
            value={user}
            onInput={(event) => setUser(event.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            name="password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(event) => setPassword(event.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <ErrorAlert message={error} />
      </form>
    </main>
  );
}
