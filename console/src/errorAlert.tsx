/** What went wrong, announced to screen readers as it appears; nothing when all is well. */
export function ErrorAlert({ message }: { message: string | null | undefined }) {
  return message ? (
    <p role="alert" class="error">
      {message}
    </p>
  ) : null;
}
