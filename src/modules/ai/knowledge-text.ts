/**
 * The text side of the knowledge index: page-aware chunking, the question's terms, and how well a
 * passage supports a question. Pure functions, shared by indexing, answering and the eval script.
 */

/** A chunk aims at this many characters, cut at sentence ends (a long sentence is cut hard). */
export const chunkChars = 900;

export interface TextChunk {
  position: number;
  /** 1-based page: of the PDF, or of a text split by form feeds (a text without them is page 1). */
  page: number;
  text: string;
}

/** Pages of a text document: a form feed (\f) starts a new page, as in printed plain text. */
export const textPages = (text: string): string[] => text.split('\f');

const sentenceEnd = /(?<=[.!?:;])\s+(?=[\p{Lu}\p{N}"'(\[*#-])/u;

/** Blocks (paragraphs, list items, headings), then sentences, each with its white space folded. */
export function sentencesOf(text: string): string[] {
  const out: string[] = [];
  // A line break before a capital also ends one: PDF headings and list lines carry no full stop.
  for (const block of text.split(/\n\s*\n|\n(?=\s*(?:[-*•]|\d+[.)]|#{1,6})\s)|\n(?=\s*[\p{Lu}])/u)) {
    const folded = block.replace(/\s+/g, ' ').trim();
    if (!folded) continue;
    for (const sentence of folded.split(sentenceEnd)) {
      const s = sentence.trim();
      if (s) out.push(s);
    }
  }
  return out;
}

/** Splits each page into chunks of whole sentences; a chunk never spans two pages. */
export function chunkPages(pages: readonly string[], maxChars = chunkChars): TextChunk[] {
  const chunks: TextChunk[] = [];
  pages.forEach((pageText, index) => {
    let current = '';
    const flush = () => {
      if (current.trim()) chunks.push({ position: chunks.length, page: index + 1, text: current.trim() });
      current = '';
    };
    for (const sentence of sentencesOf(pageText)) {
      for (let at = 0; at < sentence.length; at += maxChars) {
        const piece = sentence.slice(at, at + maxChars);
        if (current && current.length + 1 + piece.length > maxChars) flush();
        // One sentence a line, so answers can quote a chunk's sentences again.
        current = current ? `${current}\n${piece}` : piece;
      }
    }
    flush();
  });
  return chunks;
}

// Words that carry no subject: question words, auxiliaries, and what every clinic question says.
const stopwords = new Set(
  (
    'a an and are as at be been being but by can could did do does doing for from had has have how i if in into is it its me my ' +
    'no not of on or our ours should so than that the their them then there these they this those to too us was we were what when ' +
    'where which while who whom why will with would you your yours about any all also after before during tell say says said ' +
    'according document documents policy policies protocol protocols clinic clinics per each much many must may might shall'
  ).split(' '),
);

/** A light suffix-stripping stem (plural, -ing, -ed, -ly): enough to match "fasting" with "fast". */
export function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 4 && w.endsWith('ly')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('es') && /(?:ss|x|ch|sh)es$/.test(w)) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  // A doubled final consonant left by -ing/-ed (stopping → stopp → stop).
  if (/([b-df-hj-np-tv-z])\1$/.test(w) && !/(?:ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
  // A final silent e, so "premedicate" meets "premedicated" (→ premedicat).
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}

/** Lower-case words (letters and digits) of a text. */
export const wordsOf = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The question's words that carry meaning, in order, without repeats. */
export function contentWords(question: string): string[] {
  return [...new Set(wordsOf(question).filter((w) => !stopwords.has(w) && (w.length > 1 || /\d/.test(w))))].slice(0, 32);
}

/** The FTS5 MATCH expression: any of the content words (each quoted, so none is read as an operator). */
export const ftsQuery = (words: readonly string[]): string => words.map((w) => `"${w}"`).join(' OR ');

/**
 * Support of a passage for a question: the share of the question's content words (stemmed) the
 * passage contains, 0..1. The abstention threshold on it is measured on the eval set (see answers).
 */
export function support(words: readonly string[], passage: string): number {
  if (words.length === 0) return 0;
  const have = new Set(wordsOf(passage).map(stem));
  const stems = [...new Set(words.map(stem))];
  return stems.filter((s) => have.has(s)).length / stems.length;
}
