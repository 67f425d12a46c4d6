/**
 * The model has a single header row: when a table's first `count` rows are all header rows (HTML
 * `<thead>` rows, an RST table above its `===` line), they become one, each column's distinct texts
 * joined with a space. `count` 0 means no header.
 */
export function mergeHeaderRows(grid: string[][], count: number): { cells: string[][]; hasHeader: boolean } {
  if (count <= 1 || count >= grid.length) return { cells: grid, hasHeader: count >= 1 };
  const header = (grid[0] ?? []).map((_, column) => {
    const parts: string[] = [];
    for (let r = 0; r < count; r += 1) {
      const text = grid[r]?.[column] ?? '';
      if (text && !parts.includes(text)) parts.push(text);
    }
    return parts.join(' ');
  });
  return { cells: [header, ...grid.slice(count)], hasHeader: true };
}
