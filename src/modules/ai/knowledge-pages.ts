import { readFile } from 'node:fs/promises';
import type { ExtractionInput } from './knowledge-extraction.js';
import { textPages } from './knowledge-text.js';

/** The pages of an extraction worker's input: a text file read and split, a text split, or a PDF's pages as they are. */
export async function pagesOf(input: ExtractionInput): Promise<string[]> {
  if (input.kind === 'file') return textPages(await readFile(input.file, 'utf8'));
  return input.kind === 'text' ? textPages(input.text) : input.pages;
}
