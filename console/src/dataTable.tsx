import type { ComponentChildren } from 'preact';

/**
 * A table of records: its caption (read by screen readers only when `captionHidden`), its column
 * headers, and its rows as children.
 */
export function DataTable({
  caption,
  captionHidden = false,
  columns,
  children,
}: {
  caption: string;
  captionHidden?: boolean;
  columns: readonly string[];
  children: ComponentChildren;
}) {
  return (
    <table>
      <caption class={captionHidden ? 'visually-hidden' : undefined}>{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col" key={column}>
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
