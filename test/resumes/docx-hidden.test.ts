import { describe, expect, it } from 'vitest';
import { Document, Footer, HeadingLevel, Packer, Paragraph, ShadingType, TextRun, type IRunOptions } from 'docx';
import { parseResume } from '../../src/modules/resumes/parse/index.js';
import { normaliseBrief, scoreResume } from '../../src/modules/resumes/scoring/index.js';

const AS_OF = '2026-11';
const STUFFED = ['Kubernetes', 'Terraform', 'Rust', 'Scala'];
const brief = normaliseBrief({ role: 'Platform Engineer', job_description: `Requirements:\n${STUFFED.map((s) => `- ${s}`).join('\n')}` });

/** A one-role analyst's resume; `extra` runs go at the end of the first bullet, as a stuffer would put them. */
async function resume(extra: IRunOptions[], options: { styles?: ConstructorParameters<typeof Document>[0]['styles']; footer?: IRunOptions[] } = {}) {
  return Packer.toBuffer(new Document({
    styles: options.styles,
    sections: [{
      ...(options.footer ? { footers: { default: new Footer({ children: [new Paragraph({ children: options.footer.map((r) => new TextRun(r)) })] }) } } : {}),
      children: [
        new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun('Jordan Example')] }),
        new Paragraph('jordan@example.com · +1 415 555 0100'),
        new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun('Experience')] }),
        new Paragraph('Data Analyst, Acme Foods\tJan 2019 - Present'),
        new Paragraph({ bullet: { level: 0 }, children: [new TextRun('Built SQL reports in Tableau for 40 store managers and cut reporting time by half.'), ...extra.map((r) => new TextRun(r))] }),
        new Paragraph({ bullet: { level: 0 }, children: [new TextRun('Trained the team of analysts to run the weekly reports themselves, saving hours every week.')] }),
      ],
    }],
  }));
}

async function read(bytes: Buffer) {
  const result = await parseResume(bytes, { asOf: AS_OF });
  return { result, skills: result.parsed.skills.map((s) => s.canonical), codes: result.parsed.warnings.map((w) => w.code) };
}

describe('DOCX text a reader never sees (a review)', () => {
  it('hidden (vanish), white and under-4-pt runs are left out and reported, so they earn no points', async () => {
    const bytes = await resume([
      { text: ' Kubernetes Terraform', vanish: true },
      { text: ' Rust', color: 'FFFFFF' },
      { text: ' Scala', size: 6 }, // half-points: 3 pt
    ]);
    const { result, skills, codes } = await read(bytes);
    for (const s of STUFFED) expect(skills).not.toContain(s);
    expect(result.parsed.experience[0].bullets[0]).toBe('Built SQL reports in Tableau for 40 store managers and cut reporting time by half.');
    expect(codes).toEqual(expect.arrayContaining(['hidden_text', 'tiny_text']));
    const score = scoreResume(result, brief, { asOf: AS_OF });
    expect(score.requirements.filter((r) => r.status !== 'missing')).toEqual([]);
    expect(score.flags).toContain('hidden_text_ignored');
  });

  it('through a character style, the document defaults, and in a page footer', async () => {
    const styled = await resume([{ text: ' Kubernetes Terraform', style: 'Ghost' }], {
      styles: { characterStyles: [{ id: 'Ghost', name: 'Ghost', run: { vanish: true } }] },
      footer: [{ text: 'Rust Scala', color: 'FFFFFF' }],
    });
    const a = await read(styled);
    for (const s of STUFFED) expect(a.skills).not.toContain(s);
    expect(a.result.sections.flatMap((s) => s.lines).join('\n')).not.toMatch(/Kubernetes|Rust/);
    expect(a.codes).toContain('hidden_text');

    // Everything 1.5 pt unless a run says otherwise: the visible text does, the stuffed run does not.
    const size = 20;
    const tinyDefault = Packer.toBuffer(new Document({
      styles: { default: { document: { run: { size: 3 } } } },
      sections: [{
        children: [
          new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun({ text: 'Jordan Example', size: 40 })] }),
          new Paragraph({ children: [new TextRun({ text: 'jordan@example.com · +1 415 555 0100', size })] }),
          new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun({ text: 'Experience', size: 28 })] }),
          new Paragraph({ children: [new TextRun({ text: 'Data Analyst, Acme Foods\tJan 2019 - Present', size })] }),
          new Paragraph({ bullet: { level: 0 }, children: [new TextRun({ text: 'Built SQL reports in Tableau for 40 store managers and cut reporting time by half.', size }), new TextRun(' Kubernetes Terraform Rust Scala')] }),
          new Paragraph({ bullet: { level: 0 }, children: [new TextRun({ text: 'Trained the team of analysts to run the weekly reports themselves, saving hours every week.', size })] }),
        ],
      }],
    }));
    const b = await read(await tinyDefault);
    for (const s of STUFFED) expect(b.skills).not.toContain(s);
    expect(b.skills).toEqual(expect.arrayContaining(['SQL', 'Tableau']));
    expect(b.codes).toContain('tiny_text');
  });

  it('keeps white text where the document shades something (a dark sidebar or banner), and runs marked not hidden', async () => {
    const bytes = await Packer.toBuffer(new Document({
      sections: [{
        children: [
          new Paragraph({ shading: { type: ShadingType.CLEAR, fill: '1F3864', color: 'auto' }, children: [new TextRun({ text: 'Jordan Example', color: 'FFFFFF', size: 40 })] }),
          new Paragraph('jordan@example.com · +1 415 555 0100'),
          new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun('Experience')] }),
          new Paragraph('Platform Engineer, Acme Foods\tJan 2019 - Present'),
          new Paragraph({ bullet: { level: 0 }, children: [new TextRun('Ran Kubernetes clusters for 40 services and cut deploy time by half with Terraform.'), new TextRun({ text: ' Wrote the scheduler in Rust.', vanish: false })] }),
          new Paragraph({ bullet: { level: 0 }, children: [new TextRun('Moved the nightly jobs of the analysts to Scala on a shared cluster, saving hours every week.')] }),
        ],
      }],
    }));
    const { result, skills, codes } = await read(bytes);
    expect(result.parsed.name).toBe('Jordan Example');
    for (const s of STUFFED) expect(skills).toContain(s);
    expect(codes).not.toContain('hidden_text');
  });
});
