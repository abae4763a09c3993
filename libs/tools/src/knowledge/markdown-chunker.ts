export interface TextChunk {
  index: number;
  breadcrumb: string;
  content: string;
}

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;

/**
 * Splits a Markdown or plain-text document into searchable sections: one per heading, with the heading
 * path as breadcrumb ("Title > Section > Subsection"); sections longer than maxChars are split at
 * paragraph boundaries (and hard-cut only when a single paragraph is longer).
 */
export function chunkDocument(title: string, text: string, maxChars = 1200): TextChunk[] {
  const sections: { path: string[]; lines: string[] }[] = [];
  const path: string[] = [];
  let current = { path: [title], lines: [] as string[] };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    const heading = HEADING.exec(line);
    if (heading) {
      sections.push(current);
      const level = heading[1].length;
      path.length = Math.min(path.length, level - 1);
      path[level - 1] = heading[2];
      current = { path: [title, ...path.filter(Boolean)], lines: [] };
    } else {
      current.lines.push(line);
    }
  }
  sections.push(current);

  const chunks: TextChunk[] = [];
  for (const section of sections) {
    const body = section.lines.join('\n').trim();
    if (!body) continue;
    const breadcrumb = dedupeTitle(section.path).join(' > ');
    for (const piece of splitParagraphs(body, maxChars)) {
      chunks.push({ index: chunks.length, breadcrumb, content: piece });
    }
  }
  return chunks;
}

function dedupeTitle(path: string[]): string[] {
  return path.length > 1 && path[0] === path[1] ? path.slice(1) : path;
}

function splitParagraphs(body: string, maxChars: number): string[] {
  const pieces: string[] = [];
  let current = '';
  for (const paragraph of body.split(/\n{2,}/)) {
    for (let start = 0; start < paragraph.length; start += maxChars) {
      const part = paragraph.slice(start, start + maxChars);
      if (current && current.length + part.length + 2 > maxChars) {
        pieces.push(current);
        current = '';
      }
      current = current ? `${current}\n\n${part}` : part;
    }
  }
  if (current) pieces.push(current);
  return pieces;
}
