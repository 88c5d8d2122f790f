import { describe, expect, it } from 'vitest';
import { parseResume } from '../../src/modules/resumes/parse/index.js';

const AS_OF = '2026-11';

const stream = (content: string, dict = '') => `<< ${dict} /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`;

/**
 * A one-page PDF of `content` (Helvetica as /F1, the graphics states given as /GS0, /GS1…, a form as /Fm0, and two
 * optional-content layers: /Off, hidden by default, and /On).
 */
function pdf(content: string, states: string[] = [], form = ''): Buffer {
  const gs = states.map((s, i) => `/GS${i} ${s}`).join(' ');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R /OCProperties << /OCGs [7 0 R 8 0 R] /D << /ON [8 0 R] /OFF [7 0 R] >> >> >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> /ExtGState << ${gs} >> /XObject << /Fm0 6 0 R >> /Properties << /Off 7 0 R /On 8 0 R >> >> /Contents 4 0 R >>`,
    stream(content),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    stream(form, '/Type /XObject /Subtype /Form /BBox [0 0 612 792]'),
    '<< /Type /OCG /Name (Keywords) >>',
    '<< /Type /OCG /Name (Body) >>',
  ];
  let out = '%PDF-1.7\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const line = (y: number, text: string, size = 10) => `BT /F1 ${size} Tf 72 ${y} Td (${text}) Tj ET`;
const visible = [
  line(740, 'Jordan Example', 18),
  line(720, 'jordan@example.com   +1 415 555 0100'),
  line(690, 'EXPERIENCE', 12),
  line(672, 'Data Analyst, Acme Foods   Jan 2019 - Present'),
  line(658, '- Built SQL reports in Tableau for 40 store managers and cut reporting time by half.'),
  line(644, '- Trained the team of analysts to run the weekly reports themselves, saving hours.'),
];

describe('PDF text a reader never sees (a review)', () => {
  it('text painted fully transparent (a graphics state with fill alpha 0) is left out and reported', async () => {
    const bytes = pdf([...visible, `q /GS0 gs ${line(630, '- Kubernetes Terraform Rust Scala')} Q`, line(616, '- Presented the results to the board.')].join('\n'), ['<< /ca 0 >>']);
    const { parsed, sections } = await parseResume(bytes, { asOf: AS_OF });
    expect(sections.flatMap((s) => s.lines).join('\n')).not.toMatch(/Kubernetes/);
    expect(parsed.skills.map((s) => s.canonical)).not.toContain('Kubernetes');
    expect(parsed.warnings.map((w) => w.code)).toContain('hidden_text');
    // The state is restored with Q: what follows is seen again.
    expect(parsed.experience[0].bullets).toContain('Presented the results to the board.');
  });

  it('a form XObject keeps its colour to itself: text after a white-filled logo or banner is read', async () => {
    const bytes = pdf([...visible.slice(0, 3), '/Fm0 Do', ...visible.slice(3)].join('\n'), [], '1 1 1 rg 0 770 612 22 re f');
    const { parsed } = await parseResume(bytes, { asOf: AS_OF });
    expect(parsed.experience[0]?.bullets).toEqual([
      'Built SQL reports in Tableau for 40 store managers and cut reporting time by half.',
      'Trained the team of analysts to run the weekly reports themselves, saving hours.',
    ]);
    expect(parsed.warnings.map((w) => w.code)).not.toContain('hidden_text');
  });

  it('text in an optional-content layer that is off is left out and reported; a layer that is on is read', async () => {
    const bytes = pdf([
      ...visible,
      `/OC /Off BDC ${line(630, '- Kubernetes Terraform Rust Scala')} EMC`,
      `/OC /On BDC ${line(616, '- Presented the results to the board.')} EMC`,
    ].join('\n'));
    const { parsed, sections } = await parseResume(bytes, { asOf: AS_OF });
    expect(sections.flatMap((s) => s.lines).join('\n')).not.toMatch(/Kubernetes/);
    expect(parsed.warnings.map((w) => w.code)).toContain('hidden_text');
    expect(parsed.experience[0].bullets).toContain('Presented the results to the board.');
  });

  it('half-transparent text is read', async () => {
    const bytes = pdf([...visible, `q /GS0 gs ${line(630, '- Ran Kubernetes clusters for the reporting team.')} Q`].join('\n'), ['<< /ca 0.5 >>']);
    const { parsed } = await parseResume(bytes, { asOf: AS_OF });
    expect(parsed.skills.map((s) => s.canonical)).toContain('Kubernetes');
    expect(parsed.warnings.map((w) => w.code)).not.toContain('hidden_text');
  });
});
