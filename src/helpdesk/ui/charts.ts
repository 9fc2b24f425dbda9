// Charts of the help desk's report pages, drawn on the server as inline SVG: no script, no chart
// library. A chart is an image to assistive technology, named by its <title> and summed up in its
// <desc>; the page puts the figures it draws in a table beside it. Bars are grouped per label (a
// period, an agent, a category), one bar per series; one series may be drawn as a line over them.
import { html, type SafeHtml } from '../../lib/html.js';

export interface ChartSeries {
  name: string;
  values: readonly number[];
}

interface BarChart {
  /** Unique on the page: the ids of the title and description hang off it. */
  id: string;
  title: string;
  description: string;
  labels: readonly string[];
  bars: readonly ChartSeries[];
  /** A series drawn as a line over the bars (the trends report's backlog). */
  line?: ChartSeries | undefined;
}

const HEIGHT = 240;
const PLOT_TOP = 12;
const PLOT_BOTTOM = 196;
const LEFT = 44;
const RIGHT = 12;
const BAR = 10;
const GAP = 14;
/** Labels on the x axis at most; with more groups every nth is named. */
const MAX_LABELS = 12;

/** A round step for the y axis: 1, 2 or 5 times a power of ten. */
function niceStep(span: number): number {
  const rough = Math.max(span, 1) / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough)!;
  return Math.max(1, step);
}

/** The SVG of a grouped bar chart with its legend. An empty chart says so instead of drawing axes. */
export function barChart(chart: BarChart): SafeHtml {
  if (chart.labels.length === 0)
    return html`<p class="muted chart-empty" id="${chart.id}">Nothing happened in this range to draw.</p>`;
  const all = [...chart.bars.flatMap((s) => s.values), ...(chart.line?.values ?? [])];
  const step = niceStep(Math.max(...all, 0) - Math.min(...all, 0));
  const top = Math.max(step, Math.ceil(Math.max(...all, 0) / step) * step);
  const bottom = Math.min(0, Math.floor(Math.min(...all, 0) / step) * step);
  const y = (value: number) => PLOT_BOTTOM - ((value - bottom) / (top - bottom)) * (PLOT_BOTTOM - PLOT_TOP);
  const group = chart.bars.length * BAR + GAP;
  const width = LEFT + RIGHT + chart.labels.length * group;
  const ticks: number[] = [];
  for (let tick = bottom; tick <= top; tick += step) ticks.push(tick);
  const every = Math.ceil(chart.labels.length / MAX_LABELS);
  const x0 = (index: number) => LEFT + index * group + GAP / 2;
  const center = (index: number) => x0(index) + (chart.bars.length * BAR) / 2;
  const grid = ticks.map(
    (tick) =>
      html`<line class="grid" x1="${LEFT}" x2="${width - RIGHT}" y1="${y(tick)}" y2="${y(tick)}"/><text class="tick" x="${LEFT - 6}" y="${y(tick) + 4}" text-anchor="end">${tick}</text>`,
  );
  const bars = chart.bars.map((series, s) =>
    series.values.map((value, index) => {
      const from = y(Math.max(value, 0));
      const height = Math.abs(y(value) - y(0));
      return html`<rect class="s${s}" x="${x0(index) + s * BAR}" y="${from}" width="${BAR - 1}" height="${height}"><title>${chart.labels[index]}: ${series.name} ${value}</title></rect>`;
    }),
  );
  const labels = chart.labels.map((label, index) =>
    index % every === 0
      ? html`<text class="label" x="${center(index)}" y="${PLOT_BOTTOM + 16}" text-anchor="middle">${label.length > 12 ? `${label.slice(0, 11)}…` : label}</text>`
      : '',
  );
  const line = chart.line
    ? html`<polyline class="line" points="${chart.line.values.map((value, index) => `${center(index)},${y(value)}`).join(' ')}"/>${chart.line.values.map(
        (value, index) =>
          html`<circle class="line" cx="${center(index)}" cy="${y(value)}" r="3"><title>${chart.labels[index]}: ${chart.line!.name} ${value}</title></circle>`,
      )}`
    : '';
  const legend = [
    ...chart.bars.map(
      (series, s) => html`<li><span class="swatch s${s}" aria-hidden="true"></span>${series.name}</li>`,
    ),
    chart.line ? html`<li><span class="swatch line" aria-hidden="true"></span>${chart.line.name} (line)</li>` : '',
  ];
  return html`<figure class="chart" id="${chart.id}"><div class="scroll" tabindex="0" role="group" aria-label="${chart.title} (scrolls sideways)"><svg viewBox="0 0 ${width} ${HEIGHT}" width="${width}" height="${HEIGHT}" role="img" aria-labelledby="${chart.id}-title" aria-describedby="${chart.id}-desc" preserveAspectRatio="xMinYMin meet"><title id="${chart.id}-title">${chart.title}</title><desc id="${chart.id}-desc">${chart.description}</desc>
${grid}<line class="axis" x1="${LEFT}" x2="${width - RIGHT}" y1="${y(0)}" y2="${y(0)}"/>${bars}${line}${labels}</svg></div>
<figcaption><ul class="legend">${legend}</ul></figcaption></figure>`;
}
