// Merges several `node bench/run.mjs --json <file>` runs into one table: per row the median
// time of each side and the median ratio over the runs, with the range of the ratio.
//   node bench/aggregate.mjs run1.json run2.json run3.json
import { readFileSync } from 'node:fs';
import { fmt, median } from './harness.mjs';

const runs = process.argv.slice(2).map((file) => JSON.parse(readFileSync(file, 'utf8')));
if (runs.length === 0) throw new Error('usage: node bench/aggregate.mjs run1.json [run2.json …]');
console.log(`${runs.length} runs; Node ${runs[0].node}; ${runs[0].cpu}\n`);
console.log('| # | case | webmcp-warden | peer | ours / peer (median of runs) | range over runs | target | |');
console.log('|---|---|---:|---|---:|---:|---|---|');
runs[0].rows.forEach((first, i) => {
  const rows = runs.map((run) => run.rows[i]);
  const ratios = rows.map((r) => r.ratio).filter((r) => r !== undefined && r !== null);
  const ratio = ratios.length ? median(ratios) : undefined;
  const ours = median(rows.map((r) => r.ours));
  const peer = first.peer === undefined || first.peer === null ? undefined : median(rows.map((r) => r.peer));
  const max = first.targetMax ?? undefined;
  const met = max === undefined ? '' : ratio <= max ? '✓' : '✗';
  const range = ratios.length > 1 ? `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}×` : '';
  const peerText = peer === undefined ? '—' : `${fmt(peer)}${first.peerName ? ` (${first.peerName})` : ''}`;
  console.log(`| ${first.group} | ${first.name} | ${fmt(ours)} | ${peerText} | ${ratio === undefined ? '—' : ratio.toFixed(2) + '×'} | ${range} | ${first.target ?? (first.group === 6 ? 'reference' : 'info')} | ${met} |`);
});
