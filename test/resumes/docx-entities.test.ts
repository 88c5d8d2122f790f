import { describe, expect, it } from 'vitest';
import { Document, Header, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';
import JSZip from 'jszip';
import { parseResume } from '../../src/modules/resumes/parse/index.js';

const AS_OF = '2026-11';

/**
 * A DOCX whose page header says `header` as written in its XML: the header part is read without mammoth (docx.ts),
 * so a hostile file can put any entity in it, well-formed XML or not.
 */
async function withHeaderXml(header: string): Promise<Buffer> {
  const built = await Packer.toBuffer(new Document({
    sections: [{
      headers: { default: new Header({ children: [new Paragraph({ children: [new TextRun('HEADER-TEXT')] })] }) },
      children: [
        new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun('Jordan Example')] }),
        new Paragraph('jordan@example.com'),
        new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun('Experience')] }),
        new Paragraph('Data Analyst, Acme Foods\tJan 2019 - Present'),
        new Paragraph({ bullet: { level: 0 }, children: [new TextRun('Built SQL reports in Tableau for 40 store managers and cut reporting time by half.')] }),
        new Paragraph({ bullet: { level: 0 }, children: [new TextRun('Trained the team of analysts to run the weekly reports themselves, saving hours every week.')] }),
      ],
    }],
  }));
  const zip = await JSZip.loadAsync(built);
  const name = Object.keys(zip.files).find((n) => /^word\/header\d*\.xml$/.test(n))!;
  const xml = await zip.file(name)!.async('string');
  expect(xml).toContain('HEADER-TEXT');
  zip.file(name, xml.replace('HEADER-TEXT', header));
  return zip.generateAsync({ type: 'nodebuffer' });
}

const lines = async (bytes: Buffer) => (await parseResume(bytes, { asOf: AS_OF })).sections.flatMap((s) => s.lines);

describe('entities in a DOCX page header', () => {
  it('the known ones are decoded', async () => {
    expect(await lines(await withHeaderXml('Berlin &amp; Remote &#8226; &lt;ok&gt;'))).toContain('Berlin & Remote • <ok>');
  });

  // Was a bug: entity names were looked up in a plain object, so `&constructor;` found Object's own function and the
  // header line read "function Object() { [native code] }".
  it.each(['&constructor;', '&CONSTRUCTOR;'])('%s is no entity: it stays as written', async (entity) => {
    const text = (await lines(await withHeaderXml(`Berlin ${entity} Remote`))).join('\n');
    expect(text).toContain(`Berlin ${entity} Remote`);
    expect(text).not.toMatch(/native code|function/);
  });
});
