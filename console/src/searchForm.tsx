/** A search box with its button: `onSearch` gets the trimmed text (empty when the box is). */
export function SearchForm(props: {
  label: string;
  /** The form's accessible name, where a page has more than one search. */
  name?: string;
  query: string;
  setQuery(query: string): void;
  onSearch(query: string): Promise<void>;
}) {
  const submit = (event: Event): void => {
    event.preventDefault();
    void props.onSearch(props.query.trim());
  };
  return (
    <form class="panel" role="search" aria-label={props.name} onSubmit={submit}>
      <label>
        {props.label}
        <input
          type="search"
          dir="auto"
          value={props.query}
          onInput={(event) => props.setQuery(event.currentTarget.value)}
        />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}
