// The new text of a reply: what the sender wrote above the quoted history and the signature. The
// cut is at the first attribution line ("On ... wrote:", and its French and German forms), Outlook's
// "From: ... Sent:" block or "Original Message" rule, a `-- ` signature delimiter or a "Sent from my"
// line; `>` quoted lines are dropped wherever they are. A forwarded message is kept whole.

const ATTRIBUTION = [
  /^On\b.{1,300}\bwrote:\s*$/i,
  /^Le\b.{1,300}\ba écrit\s?:\s*$/i,
  /^Am\b.{1,300}\bschrieb\b.{0,100}:\s*$/i,
];
const RULE = /^\s*-{2,}\s*Original Message\s*-{2,}\s*$/i;
const OUTLOOK_LINE = /^_{10,}\s*$/;
const OUTLOOK_FROM = /^\*?From:\*?\s+\S/;
const OUTLOOK_NEXT = /^\*?(Sent|Date|To|Subject):\*?\s/;
const SIGNATURE = /^-- ?$/;
const MOBILE = /^Sent from my \S.{0,40}$/i;
const FORWARD = /^(-{2,}\s*Forwarded message\s*-{2,}|Begin forwarded message:)\s*$/i;

function isCut(lines: readonly string[], index: number): boolean {
  const line = lines[index]!.trim();
  // Some clients wrap a long attribution onto two lines.
  const joined = index + 1 < lines.length ? `${line} ${lines[index + 1]!.trim()}` : line;
  if (ATTRIBUTION.some((pattern) => pattern.test(line) || (/^(On|Le|Am)\b/.test(line) && pattern.test(joined))))
    return true;
  if (RULE.test(line) || OUTLOOK_LINE.test(line)) return true;
  if (OUTLOOK_FROM.test(line)) return lines.slice(index + 1, index + 4).some((next) => OUTLOOK_NEXT.test(next.trim()));
  return SIGNATURE.test(lines[index]!.trimEnd()) || MOBILE.test(line);
}

/** The reply's own text; the whole text when stripping would leave nothing. */
export function stripQuotedReply(text: string): string {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    // What follows a forward marker is the forwarded mail itself: kept as it is.
    if (FORWARD.test(lines[index]!.trim())) {
      kept.push(...lines.slice(index).map((line) => line.trimEnd()));
      break;
    }
    if (isCut(lines, index)) break;
    if (/^\s*>/.test(lines[index]!)) continue;
    kept.push(lines[index]!.trimEnd());
  }
  const result = kept
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return result === '' ? text.trim() : result;
}
