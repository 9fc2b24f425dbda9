// How long ago (or how soon) a moment is, in words a reader takes in at a glance: "3 hours ago",
// "yesterday", "in 2 days". Pages put the exact time beside it (a `<time>` element's title).

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

const words = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
/**
 * The phrases said so far, by unit and amount: a page says a few dozen of them, and formatting one
 * costs more than the rest of its time element. Few exist below a year (under 60 per unit).
 */
const said = new Map<string, string>();

function say(amount: number, unit: Intl.RelativeTimeFormatUnit): string {
  const key = `${amount} ${unit}`;
  let phrase = said.get(key);
  if (phrase === undefined) said.set(key, (phrase = words.format(amount, unit)));
  return phrase;
}

/** `date` relative to `now` in the largest whole unit; under a minute either way is "now". */
export function relativeTimeText(date: Date, now: Date): string {
  const seconds = (date.getTime() - now.getTime()) / 1000;
  for (const [unit, size] of UNITS) {
    const amount = Math.trunc(seconds / size);
    if (amount !== 0) return say(amount, unit);
  }
  return say(0, 'second');
}
