import { StringDecoder } from 'node:string_decoder';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import type { TimeSlices } from '../../lib/yield';
import { inflated, type ZipPart } from './zip-limits';

/** A part that is not well-formed XML, or not a workbook's: the file is unreadable (a 400), unlike a fault of the reader's own. */
export class UnreadablePart extends Error {}

/** What a pass over one XML part does with what saxes reads: it keeps what it needs and drops the rest. */
export interface XmlVisitor {
  open(tag: SaxesTagPlain): void;
  text(text: string): void;
  close(name: string): void;
  /** Whether the visitor has what it came for: the rest of the part is not read. */
  done(): boolean;
}

/**
 * Parses a checked part by saxes (the parser exceljs uses) as it inflates, 64 KiB at a time,
 * yielding to the event loop when `slices` is due. A character cut between two chunks is
 * joined again (exceljs decoded each chunk alone). XML 1.0 whatever the part declares, so that
 * no text holds a control character (sheet-rows.ts uses two as markers). Like exceljs, a part
 * that ends before its root closes is read up to where it ends.
 */
export async function parseXmlPart(part: ZipPart, visitor: XmlVisitor, slices: TimeSlices): Promise<void> {
  const parser = new SaxesParser<{ xmlns: false; defaultXMLVersion: '1.0'; forceXMLVersion: true }>({ xmlns: false, defaultXMLVersion: '1.0', forceXMLVersion: true });
  parser.on('error', (err) => {
    throw new UnreadablePart(err.message);
  });
  parser.on('opentag', (tag) => visitor.open(tag));
  parser.on('text', (text) => visitor.text(text));
  parser.on('cdata', (text) => visitor.text(text));
  parser.on('closetag', (tag) => visitor.close(tag.name));
  const decoder = new StringDecoder('utf8');
  for await (const chunk of inflated(part)) {
    parser.write(decoder.write(chunk));
    if (visitor.done()) return;
    if (slices.due()) await slices.pause();
  }
  parser.write(decoder.end());
}
