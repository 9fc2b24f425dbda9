// The new text of a reply: what the sender wrote above the quoted history and the signature. The
// cut is at the first attribution line ("On ... wrote:" as Gmail, Apple Mail, iPhone, Yahoo and
// Thunderbird write it, and its common translations, or Gmail's date-first "2005-05-10 ... <a@b>:"),
// Outlook's "From: ... Sent:" block (in its translations too) or "Original Message" rule, a `-- `
// signature delimiter or a "Sent from my" line; `>` quoted lines are dropped wherever they are. A
// reply written below the quote (bottom-posting) keeps what follows the quote. A forwarded message
// is kept whole.

/** Attribution lines: the opening word and the verb of each language, the date and sender between. */
const ATTRIBUTION = [
  /^On\b.{1,300}\bwrote:\s*$/i,
  /^Le\b.{1,300}\ba écrit\s?:\s*$/i,
  /^Am\b.{1,300}\bschrieb\b.{0,100}:\s*$/i,
  /^El\b.{1,300}\bescribió\s?:\s*$/i,
  /^Il\b.{1,300}\bha scritto\s?:\s*$/i,
  /^Op\b.{1,300}\bschreef\b.{0,100}:\s*$/i,
  /^Em\b.{1,300}\bescreveu\s?:\s*$/i,
  /^Den\b.{1,300}\bskrev\b.{0,100}:\s*$/i,
  /^W dniu\b.{1,300}\bpisze\s?:\s*$/i,
  /^.{1,300}\s(написал\(а\)|написал|написала|пишет)\s?:\s*$/i,
  // Gmail in languages that put the date first (Japanese, Chinese, Korean, ISO dates).
  /^\d{4}[-/.年].{1,200}<[^<>\s]+@[^<>\s]+>\s?(のメッセージ)?\s?[:：]\s*$/,
];
/** Attribution openings a client may wrap onto a second line. */
const ATTRIBUTION_START = /^(On|Le|Am|El|Il|Op|Em|Den|W dniu)\b|^\d{4}[-/.年]/;
const RULE =
  /^\s*-{2,}\s*(Original Message|Ursprüngliche Nachricht|Message d'origine|Mensaje original|Messaggio originale|Oorspronkelijk bericht)\s*-{2,}\s*$/i;
const OUTLOOK_LINE = /^_{10,}\s*$/;
const OUTLOOK_FROM = /^\*?(From|De|Von|Da|Van|Från|Fra|Od|От|差出人|发件人)\s?:\*?\s+\S/;
const OUTLOOK_NEXT =
  /^\*?(Sent|Date|To|Subject|Envoyé|Objet|À|Gesendet|Betreff|An|Enviado|Asunto|Para|Inviato|Oggetto|A|Verzonden|Onderwerp|Aan|Skickat|Ämne|Till|Sendt|Emne|Til|Wysłano|Temat|Do|Отправлено|Тема|Кому|送信日時|件名|宛先|发送时间|主题|收件人)\s?:\*?\s/;
const SIGNATURE = /^-- ?$/;
const MOBILE = /^Sent from my \S.{0,40}$/i;
const FORWARD = /^(-{2,}\s*Forwarded message\s*-{2,}|Begin forwarded message:)\s*$/i;

/** An attribution opens `>` quoted lines; Outlook's quote is not marked and runs to the end. */
type Cut = 'attribution' | 'quote' | 'signature';

function cutAt(lines: readonly string[], index: number): Cut | undefined {
  const line = lines[index]!.trim();
  // Some clients wrap a long attribution onto two lines.
  const joined = index + 1 < lines.length ? `${line} ${lines[index + 1]!.trim()}` : line;
  if (ATTRIBUTION.some((pattern) => pattern.test(line) || (ATTRIBUTION_START.test(line) && pattern.test(joined))))
    return 'attribution';
  if (RULE.test(line) || OUTLOOK_LINE.test(line)) return 'quote';
  if (OUTLOOK_FROM.test(line) && lines.slice(index + 1, index + 4).some((next) => OUTLOOK_NEXT.test(next.trim())))
    return 'quote';
  return SIGNATURE.test(lines[index]!.trimEnd()) || MOBILE.test(line) ? 'signature' : undefined;
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
    const cut = cutAt(lines, index);
    // An attribution with nothing written above it opens a quote the reply is written below.
    if (cut === 'attribution' && kept.every((line) => line.trim() === '')) continue;
    if (cut) break;
    if (/^\s*>/.test(lines[index]!)) continue;
    kept.push(lines[index]!.trimEnd());
  }
  const result = kept
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  return result === '' ? text.trim() : result;
}
