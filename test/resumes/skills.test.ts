import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { skillTaxonomy } from '../../src/modules/resumes/skills.js';

interface Entry {
  name: string;
  category: string;
  synonyms: string[];
  ambiguous_synonyms?: string[];
  related: string[];
  ambiguous?: boolean;
}

const DIR = new URL('../../catalog/skills/', import.meta.url);
const file = JSON.parse(readFileSync(new URL('skills.json', DIR), 'utf8')) as { source: string; licence: string; skills: Entry[] };
const taxonomy = skillTaxonomy();
// The file's own notion of "the same name": case, spaces and punctuation other than + and # do not count.
const norm = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}+#]/gu, '');
const found = (text: string) => taxonomy.scan(text).map((m) => m.skill.name);

const REQUIRED = [
  'JavaScript', 'TypeScript', 'Python', 'Java', 'Go', 'C++', 'C#', 'C', 'Ruby', 'Ruby on Rails', 'PHP', 'Rust', 'Kotlin', 'Swift',
  'Scala', 'R', 'SQL', 'PostgreSQL', 'MySQL', 'MongoDB', 'Redis', 'Elasticsearch', 'Kafka', 'RabbitMQ', 'Apache Spark', 'Hadoop',
  'Airflow', 'dbt', 'Snowflake', 'BigQuery', 'Tableau', 'Power BI', 'Excel', 'React', 'Angular', 'Vue.js', 'Next.js', 'Node.js',
  'Express', 'Django', 'Flask', 'FastAPI', 'Spring Boot', '.NET', 'GraphQL', 'REST APIs', 'gRPC', 'HTML', 'CSS', 'Sass',
  'Tailwind CSS', 'Redux', 'Webpack', 'Docker', 'Kubernetes', 'Terraform', 'Ansible', 'Jenkins', 'GitHub Actions', 'CI/CD', 'AWS',
  'Microsoft Azure', 'Google Cloud Platform', 'Linux', 'Bash', 'Git', 'TensorFlow', 'PyTorch', 'scikit-learn', 'Pandas', 'NumPy',
  'Machine Learning', 'Deep Learning', 'Natural Language Processing', 'Computer Vision', 'Data Analysis', 'Statistics', 'Jira',
  'Figma', 'Agile', 'Scrum', 'Leadership', 'Project Management', 'Microservices', 'System Design', 'Distributed Systems', 'Jest',
  'Cypress', 'Selenium', 'Unit Testing', 'iOS', 'Android', 'React Native', 'Flutter', 'Prometheus', 'Grafana', 'Nginx', 'OAuth',
  'Cybersecurity', 'Penetration Testing',
];

describe('catalog/skills/skills.json', () => {
  it('names its source and licence, and ships the attribution CC BY 4.0 asks for', () => {
    expect(file.licence).toBe('CC BY 4.0');
    expect(file.source).toMatch(/O\*NET/);
    const attribution = readFileSync(new URL('ATTRIBUTION.md', DIR), 'utf8').replace(/\\/g, '').replace(/\s+/g, ' ');
    expect(attribution).toMatch(/O\*NET 30\.\d Database/);
    expect(attribution).toMatch(/U\.S\. Department of Labor, Employment and Training Administration \(USDOL\/ETA\)/);
    expect(attribution).toMatch(/CC BY 4\.0/);
    expect(attribution).toMatch(/trademark of USDOL\/ETA/);
    expect(attribution).toMatch(/modified subset/);
  });

  it('has at least 350 skills in 15 to 25 kebab-case categories, professional skills among them', () => {
    expect(file.skills.length).toBeGreaterThanOrEqual(350);
    const categories = new Set(file.skills.map((s) => s.category));
    expect(categories.size).toBeGreaterThanOrEqual(15);
    expect(categories.size).toBeLessThanOrEqual(25);
    for (const c of categories) expect(c).toMatch(/^[a-z]+(?:-[a-z]+)*$/);
    for (const c of categories) expect(file.skills.filter((s) => s.category === c).length, c).toBeGreaterThanOrEqual(5);
    const professional = file.skills.filter((s) => s.category === 'professional-skills').map((s) => s.name);
    expect(professional).toEqual(expect.arrayContaining(['Leadership', 'Project Management', 'Agile', 'Scrum', 'Stakeholder Management', 'Mentoring', 'Communication', 'Public Speaking']));
  });

  it('has every name other code depends on, spelt exactly', () => {
    const names = new Set(file.skills.map((s) => s.name));
    expect(REQUIRED.filter((n) => !names.has(n))).toEqual([]);
  });

  it('gives every name and synonym to one skill only', () => {
    const owner = new Map<string, string>();
    const clashes: string[] = [];
    for (const s of file.skills) {
      for (const form of [s.name, ...s.synonyms]) {
        const key = norm(form);
        expect(key, `${s.name}: "${form}"`).not.toBe('');
        const other = owner.get(key);
        if (other !== undefined && other !== s.name) clashes.push(`${form} (${s.name} and ${other})`);
        owner.set(key, s.name);
      }
    }
    expect(clashes).toEqual([]);
  });

  it('relates only skills that exist, and marks ambiguous synonyms among the synonyms', () => {
    const names = new Set(file.skills.map((s) => s.name));
    for (const s of file.skills) {
      for (const r of s.related) expect(names.has(r) && r !== s.name, `${s.name} → ${r}`).toBe(true);
      for (const a of s.ambiguous_synonyms ?? []) expect(s.synonyms, s.name).toContain(a);
    }
  });

  it('flags the one-letter and word-like names as ambiguous', () => {
    const ambiguous = new Set(file.skills.filter((s) => s.ambiguous).map((s) => s.name));
    for (const n of ['C', 'R', 'Go', 'Swift', 'Excel', 'Spring', 'Rust', 'Dart', 'Ruby', 'Express', 'Flask']) expect(ambiguous.has(n), n).toBe(true);
    for (const n of ['JavaScript', 'Python', 'Kubernetes']) expect(ambiguous.has(n), n).toBe(false);
  });
});

describe('skillTaxonomy().lookup', () => {
  it.each([
    ['JS', 'JavaScript'], ['TS', 'TypeScript'], ['k8s', 'Kubernetes'], ['K8s', 'Kubernetes'], ['Postgres', 'PostgreSQL'], ['golang', 'Go'],
    ['ReactJS', 'React'], ['React.js', 'React'], ['NodeJS', 'Node.js'], ['Node', 'Node.js'], [' node ', 'Node.js'], ['Vue', 'Vue.js'],
    ['GCP', 'Google Cloud Platform'], ['Azure', 'Microsoft Azure'], ['Amazon Web Services', 'AWS'], ['ML', 'Machine Learning'],
    ['NLP', 'Natural Language Processing'], ['sklearn', 'scikit-learn'], ['Spark', 'Apache Spark'], ['TF', 'TensorFlow'],
    ['CI/CD pipelines', 'CI/CD'], ['ci cd', 'CI/CD'], ['c++', 'C++'], ['c#', 'C#'], ['.net', '.NET'], ['dotnet', '.NET'],
  ])('finds %j as %s', (term, name) => {
    expect(taxonomy.lookup(term)?.name).toBe(name);
  });

  it('ignores case, spacing and trailing punctuation, and finds ambiguous names in a list', () => {
    expect(taxonomy.lookup('JAVASCRIPT')?.name).toBe('JavaScript');
    expect(taxonomy.lookup('  python. ')?.name).toBe('Python');
    expect(taxonomy.lookup('Node.js,')?.name).toBe('Node.js');
    expect(taxonomy.lookup('go')?.name).toBe('Go');
    expect(taxonomy.lookup('c')?.name).toBe('C');
    expect(taxonomy.lookup('r')?.name).toBe('R');
    expect(taxonomy.lookup('excel')?.name).toBe('Excel');
  });

  it('reads a name with a version or a note', () => {
    expect(taxonomy.lookup('Python 3.11')?.name).toBe('Python');
    expect(taxonomy.lookup('Angular 2+')?.name).toBe('Angular');
    expect(taxonomy.lookup('Java (Spring)')?.name).toBe('Java');
    expect(taxonomy.lookup('Google Cloud Platform (GCP)')?.name).toBe('Google Cloud Platform');
  });

  it('returns null for what it does not know', () => {
    expect(taxonomy.lookup('Underwater basket weaving')).toBeNull();
    expect(taxonomy.lookup('')).toBeNull();
    expect(taxonomy.lookup('Python, Java')).toBeNull();
  });

  it('hands out one shared, frozen set of skills', () => {
    expect(skillTaxonomy()).toBe(taxonomy);
    expect(taxonomy.skills.length).toBe(file.skills.length);
    expect(Object.isFrozen(taxonomy.lookup('Python'))).toBe(true);
  });
});

describe('skillTaxonomy().scan', () => {
  it('finds whole tokens only: no Java in JavaScript, no Go in Google', () => {
    expect(found('Wrote JavaScript for Google')).toEqual(['JavaScript']);
    expect(found('Java and JavaScript')).toEqual(['Java', 'JavaScript']);
  });

  it('finds ambiguous names only with their capitalisation', () => {
    expect(found('I will go there')).toEqual([]);
    expect(found('services in Go')).toEqual(['Go']);
    expect(found('a swift reply, a rusty ruby')).toEqual([]);
    expect(found('apps in Swift and Rust')).toEqual(['Swift', 'Rust']);
    expect(found('the node of a tree')).toEqual([]);
    expect(found('a Node service')).toEqual(['Node.js']);
  });

  it('keeps C, C++ and C# apart', () => {
    expect(found('C++ and C#')).toEqual(['C++', 'C#']);
    expect(found('C, C++ and C#')).toEqual(['C', 'C++', 'C#']);
    expect(found('C/C++')).toEqual(['C', 'C++']);
  });

  it('does not take labels, initials and compounds for C or R', () => {
    expect(found('C-suite, R&D, Washington D.C., Series C funding, vitamin C')).toEqual([]);
    expect(found('Jane R. Doe, John C. Smith')).toEqual([]);
    expect(found('Python, R, SQL')).toEqual(['Python', 'R', 'SQL']);
    expect(found('Modelled churn in R. Then shipped it')).toEqual(['R']);
  });

  it('prefers the longest name at a position', () => {
    expect(found('Ruby on Rails')).toEqual(['Ruby on Rails']);
    expect(found('Ruby and Rails')).toEqual(['Ruby', 'Ruby on Rails']);
    expect(found('React Native apps on React')).toEqual(['React Native', 'React']);
    expect(found('Apache Spark and Spark')).toEqual(['Apache Spark', 'Apache Spark']);
  });

  it('reads punctuation inside names and ignores it after them', () => {
    expect(found('deployed on k8s.')).toEqual(['Kubernetes']);
    expect(found('Built with Node.js, React.')).toEqual(['Node.js', 'React']);
    expect(found('Python. Then CI/CD pipelines')).toEqual(['Python', 'CI/CD']);
    expect(found('ASP.NET Core and .NET on Vue.js')).toEqual(['ASP.NET', '.NET', 'Vue.js']);
    expect(found('Python/Django, Objective-C')).toEqual(['Python', 'Django', 'Objective-C']);
    expect(found('Java-based services')).toEqual(['Java']);
  });

  it('does not join ordinary words into a name', () => {
    expect(found('experience in design, a sales force, a work day')).toEqual([]);
    expect(found('React JS and Vue JS')).toEqual(['React', 'Vue.js']);
  });

  it('skips links and e-mail addresses', () => {
    expect(found('github.com/ann, https://gitlab.com/ann, ann@python.org and Git')).toEqual(['Git']);
  });

  it('reports where and how each mention was found', () => {
    const text = 'Ran K8s and Kubernetes with Terraform.';
    expect(taxonomy.scan(text).map((m) => [m.skill.name, m.matched, m.index, m.via])).toEqual([
      ['Kubernetes', 'K8s', 4, 'synonym'],
      ['Kubernetes', 'Kubernetes', 12, 'exact'],
      ['Terraform', 'Terraform', 28, 'exact'],
    ]);
    expect(taxonomy.scan('')).toEqual([]);
  });

  it('scans a resume-sized text', () => {
    const names = taxonomy.skills.slice(0, 200).map((s) => s.name);
    const words: string[] = [];
    for (let i = 0; words.length < 5000; i++) words.push(i % 20 === 0 ? names[(i / 20) % names.length] : 'shipped,');
    const mentions = taxonomy.scan(words.join(' '));
    expect(mentions.length).toBeGreaterThanOrEqual(240);
    expect(mentions.every((m, i) => i === 0 || m.index > mentions[i - 1].index)).toBe(true);
  });
});

describe('skillTaxonomy().related', () => {
  it('is symmetric, and closelyRelated needs a listed relation', () => {
    expect(taxonomy.closelyRelated('React', 'Redux')).toBe(true);
    expect(taxonomy.closelyRelated('Redux', 'React')).toBe(true);
    for (const s of taxonomy.skills) for (const r of s.related) expect(taxonomy.closelyRelated(r, s.name), `${r} → ${s.name}`).toBe(true);
    expect(taxonomy.closelyRelated('Python', 'COBOL')).toBe(false);
  });

  it('also counts a shared category', () => {
    expect(taxonomy.related('Python', 'COBOL')).toBe(true);
    expect(taxonomy.related('Kafka', 'Apache Spark')).toBe(true);
    expect(taxonomy.related('React', 'Kubernetes')).toBe(false);
  });

  it('is false for unknown names', () => {
    expect(taxonomy.related('React', 'Underwater basket weaving')).toBe(false);
    expect(taxonomy.closelyRelated('Nothing', 'React')).toBe(false);
  });
});

describe('skill names that are everyday words need context (a review)', () => {
  it.each([
    'Excel at communication and teamwork',
    'Word of mouth brought in 40% of new clients',
    'Outlook for 2025 remains strong',
    'Teams of five engineers shipped weekly',
    'Pastry Chef',
    'Puppet shows for the children’s ward',
    'Partnered with American Express on a loyalty launch',
    'Linear regression models for churn',
    'Combine strong analytical skills with empathy',
    'Spring 2023 internship',
  ])('"%s" names no such skill', (text) => {
    const common = ['Excel', 'Microsoft Word', 'Microsoft Outlook', 'Microsoft Teams', 'Chef', 'Puppet', 'Express', 'Linear', 'Combine', 'Spring'];
    expect(found(text).filter((name) => common.includes(name))).toEqual([]);
  });

  it.each([
    ['Built forecasting models in Excel', 'Excel'],
    ['Excel, SQL and Tableau', 'Excel'],
    ['Built Excel dashboards for 12 stores', 'Excel'],
    ['Advanced Excel', 'Excel'],
    ['MS Excel and Microsoft Word', 'Microsoft Word'],
    ['Excel, Word and PowerPoint', 'Microsoft Word'],
    ['Managed calendars in Outlook', 'Microsoft Outlook'],
    ['Wrote Chef cookbooks for 200 servers', 'Chef'],
    ['Configuration management with Chef or Puppet', 'Puppet'],
    ['Chef, Ansible and Terraform', 'Chef'],
    ['REST APIs in Node.js and Express', 'Express'],
    ['Built Express middleware', 'Express'],
    ['Java and Spring microservices', 'Spring'],
  ])('"%s" still names %s', (text, skill) => {
    expect(found(text)).toContain(skill);
  });

  it('a brief for a pastry chef asks for no DevOps tool, and a resume line "Excel at …" claims no Excel', async () => {
    const { extractRequirements } = await import('../../src/modules/resumes/scoring/requirements.js');
    const brief = { role: 'Pastry Chef', job_description: 'Requirements:\n- Excel at working under pressure\n- Word of mouth reputation\n- Outlook for 2025: two new shops' };
    expect(extractRequirements(brief as never, taxonomy).filter((r) => r.kind === 'skill').map((r) => r.label)).toEqual([]);
    const { parseResume } = await import('../../src/modules/resumes/parse/index.js');
    const { parsed } = await parseResume(Buffer.from([
      'Alex Baker', 'alex@example.com | +1 415 555 0100', '',
      'EXPERIENCE', 'Pastry Chef, Le Petit Four\tJan 2020 – Present',
      '- Excel at leading a team of 6 through 300 covers a night.', '- Word of mouth doubled our wedding-cake orders in a year.',
    ].join('\n')), { asOf: '2026-11' });
    expect(parsed.skills.map((s) => s.canonical)).toEqual([]);
  });
});

describe('more skill names that are everyday words, titles or names (a review)', () => {
  it.each([
    ['Packer', 'Packer'], ['Postman', 'Postman'], ['Assembly Line Operator', 'Assembly Language'], ['Freelance Illustrator', 'Adobe Illustrator'],
    ['Spark joy in every client interaction', 'Apache Spark'], ['Bootstrap the sales team from scratch', 'Bootstrap'],
    ['Sketch artist for the city paper', 'Sketch'], ['Reported to Julia Chen, head of finance', 'Julia'], ['Coached by Ray Dalio', 'Ray'],
    ['Cypress Semiconductor supplier audits', 'Cypress'], ['Unity in the team mattered most', 'Unity'],
  ])('"%s" names no %s', (text, skill) => {
    expect(found(text)).not.toContain(skill);
  });

  it.each([
    ['Baked AMIs with Packer and Terraform', 'Packer'], ['Postman collections for 40 endpoints', 'Postman'],
    ['Wrote ARM Assembly for a bootloader', 'Assembly Language'], ['Logos in Illustrator', 'Adobe Illustrator'],
    ['Tuned Spark jobs on EMR', 'Apache Spark'], ['HTML, CSS, Bootstrap', 'Bootstrap'], ['Wireframes in Sketch', 'Sketch'],
    ['Numerical simulations in Julia', 'Julia'], ['Distributed training on a Ray cluster', 'Ray'], ['Cypress end-to-end tests', 'Cypress'],
    ['Unity 3D games for mobile', 'Unity'],
  ])('"%s" still names %s', (text, skill) => {
    expect(found(text)).toContain(skill);
  });
});

describe('a common-word skill followed by a capitalised word is a name (a review)', () => {
  it.each([
    ['Worked with Julia Chen on budgets', 'Julia'], ['Partnered with Express Scripts on claims', 'Express'],
    ['Met with Puppet Labs engineers', 'Puppet'], ['Booked venues with Unity Hall', 'Unity'],
  ])('"%s" names no %s', (text, skill) => {
    expect(found(text)).not.toContain(skill);
  });

  it.each([
    ['Automated deploys with Chef', 'Chef'], ['Built models in Excel', 'Excel'], ['Built models in Excel\nLed a team', 'Excel'],
    ['Chef, Ansible and Terraform', 'Chef'],
  ])('"%s" still names %s', (text, skill) => {
    expect(found(text)).toContain(skill);
  });
});

describe('a language named by an everyday word, starting a sentence or before a capitalised word (a review)', () => {
  it.each([
    ['Go live with the new billing system in May', 'Go'], ['Go Live Readiness Lead', 'Go'], ['Led the Go Live of the new ERP', 'Go'],
    ['Swift turnaround on every customer ticket', 'Swift'], ['Swift Turnaround Award, 2021', 'Swift'],
    ['Rust prevention programme for the bridge fleet', 'Rust'], ['Ruby anniversary gala for 300 guests', 'Ruby'],
    ['Dart board league captain', 'Dart'], ['Opened the Elm Street branch', 'Elm'], ['Elm Street Community Centre volunteer', 'Elm'],
    ['Grunt work nobody else wanted', 'Grunt'], ['Rollup of regional sales for the board', 'Rollup'],
    ['Spark joy in every client interaction', 'Apache Spark'], ['Express delivery for 2,000 parcels a day', 'Express'],
    ['Shipped the app on time. Go live was in May.', 'Go'],
  ])('"%s" names no %s', (text, skill) => {
    expect(found(text)).not.toContain(skill);
  });

  it.each([
    ['Go, Rust and Swift', 'Go'], ['Go, Rust and Swift', 'Rust'], ['Go, Rust and Swift', 'Swift'], ['built services in Go', 'Go'],
    ['Swift/SwiftUI apps', 'Swift'], ['Built Go services that process 2M events a day', 'Go'], ['Rewrote the parser in Rust', 'Rust'],
    ['Senior Go Developer', 'Go'], ['Go microservices behind the dispatch API', 'Go'], ['Swift and Objective-C apps', 'Swift'],
    ['Rust crates for the storage engine', 'Rust'], ['Ruby gems for internal tooling', 'Ruby'], ['Dart and Flutter apps', 'Dart'],
    ['Elm frontend for the admin console', 'Elm'], ['Wrote Go CLI tools for the SRE team', 'Go'], ['Go (golang)', 'Go'],
    ['Grunt tasks for the legacy build', 'Grunt'], ['Maintained the Ruby codebase', 'Ruby'],
  ])('"%s" still names %s', (text, skill) => {
    expect(found(text)).toContain(skill);
  });

  it('a brief and a resume that say "Go live" ask for and claim no Go', async () => {
    const { extractRequirements } = await import('../../src/modules/resumes/scoring/requirements.js');
    const brief = { role: 'Implementation Manager', job_description: 'Requirements:\n- Go live planning for enterprise customers\n- Swift turnaround on customer requests' };
    expect(extractRequirements(brief as never, taxonomy).filter((r) => r.kind === 'skill').map((r) => r.label)).toEqual([]);
    const { parseResume } = await import('../../src/modules/resumes/parse/index.js');
    const { parsed } = await parseResume(Buffer.from([
      'Alex Baker', 'alex@example.com | +1 415 555 0100', '',
      'EXPERIENCE', 'Implementation Manager, Northwind\tJan 2020 – Present',
      '- Go live for 14 enterprise customers without a single rollback.', '- Rust prevention audits across 3 plants.',
    ].join('\n')), { asOf: '2026-11' });
    expect(parsed.skills.map((s) => s.canonical)).toEqual([]);
  });
});

describe('a sentence word alone on its line is a list entry', () => {
  it.each([['Go'], ['- Rust'], ['• Swift'], ['Requirements:\n- Go\n- Rust.']])('"%s" names its skill', (text) => {
    expect(found(text).length).toBeGreaterThan(0);
  });
});

describe('a sentence word qualified right after by a job description\'s word', () => {
  it.each([['Go preferred.', 'Go'], ['Rust experience is a plus', 'Rust'], ['Swift skills required', 'Swift']])('"%s" names %s', (text, skill) => {
    expect(found(text)).toContain(skill);
  });
  it('"Swift turnaround required" names no Swift', () => expect(found('Swift turnaround required')).not.toContain('Swift'));
});

describe('a skills line that rates each skill by years or level (a review)', () => {
  it('"Python: 5 years, Go: 3 years" lists Python and Go, not "5 years"', async () => {
    const { parseResume } = await import('../../src/modules/resumes/parse/index.js');
    const { parsed } = await parseResume(Buffer.from([
      'Alex Baker', 'alex@example.com | +1 415 555 0100', '',
      'EXPERIENCE', 'Data Analyst, Northwind\tJan 2020 – Present',
      '- Built weekly reports for 40 store managers and cut reporting time by half.', '',
      'SKILLS', 'Python: 5 years, Go: 3 years', 'Tableau: advanced; Excel: expert', 'Languages: Rust, Kotlin',
    ].join('\n')), { asOf: '2026-11' });
    expect(parsed.skills.filter((s) => s.evidence === 'listed').map((s) => s.canonical)).toEqual(['Python', 'Go', 'Tableau', 'Excel', 'Rust', 'Kotlin']);
  });
});

describe('Go written beside what it was used for, and everyday "go" (a review)', () => {
  it.each([
    ['Wrote Go Lambdas for the billing pipeline'], ['Go Lambdas behind API Gateway'], ['Wrote Go Lambdas and Rust CLIs'],
    ['Built Go services that process 2M events a day'], ['Rewrote the ingestion pipeline in Go and Rust'],
    ['Worked on the Go SDK'], ['Worked on the Go team at Google'], ['Let Go services own the queue'],
  ])('"%s" names Go', (text) => {
    expect(found(text)).toContain('Go');
  });

  it.each([
    ['go to market'], ['on the go'], ['let go'], ['Led the Go to Market plan for EMEA'], ['Snacks On The Go'], ['Opened 2 "Snacks On The Go" stores'],
    ['Coffee on the Go.'], ['Had to let Go of 3 vendors'], ['Let Go of the legacy contracts'], ["Let's Go campaign for 12 stores"],
    ['Let’s Go!'], ['Made the Go / No Go call for the launch'], ['Pokémon Go events for 300 players'],
  ])('"%s" names no Go', (text) => {
    expect(found(text)).not.toContain('Go');
  });

  it('a resume that wrote Go Lambdas used Go; "let Go of" in another role claims nothing', async () => {
    const { parseResume } = await import('../../src/modules/resumes/parse/index.js');
    const { parsed } = await parseResume(Buffer.from([
      'Alex Baker', 'alex@example.com | +1 415 555 0100', '',
      'EXPERIENCE', 'Backend Engineer, Northwind\tJan 2022 – Present',
      '- Wrote Go Lambdas that settle 40,000 invoices a day.',
      'Store Manager, Acme Foods\tJan 2018 – Dec 2021',
      '- Had to let Go of 3 vendors and renegotiated the rest.',
    ].join('\n')), { asOf: '2026-11' });
    expect(parsed.skills.filter((s) => s.canonical === 'Go')).toEqual([{ name: 'Go', canonical: 'Go', evidence: 'experience' }]);
    const { parsed: manager } = await parseResume(Buffer.from([
      'Alex Baker', 'alex@example.com | +1 415 555 0100', '',
      'EXPERIENCE', 'Store Manager, Acme Foods\tJan 2018 – Present',
      '- Had to let Go of 3 vendors and renegotiated the rest.', '- Opened 2 stores of Snacks On The Go, our coffee brand.',
    ].join('\n')), { asOf: '2026-11' });
    expect(manager.skills.map((s) => s.canonical)).not.toContain('Go');
  });
});

it('the everyday-go checks look at a few characters around each mention: a 300,000-character line stays fast', () => {
  // Reading the whole line before each mention took about 25 s for this line; about 0.1 s now (the margin is for load).
  const line = 'the Go. let Go. '.repeat(18_750);
  const started = performance.now();
  expect(found(line)).toEqual([]);
  expect(performance.now() - started).toBeLessThan(10_000);
});

describe('the plural of a skill listed in `plurals` is the skill (a review)', () => {
  it.each([
    ['Wrote Go Lambdas for the billing pipeline', ['Go', 'AWS Lambda']],
    ['Go Lambdas behind API Gateway', ['Go', 'AWS Lambda', 'API Gateway']],
    ['Moved 12 services to Lambdas and cut costs by a third', ['AWS Lambda']],
    ['Peered 4 VPCs across two regions', ['Amazon VPC']],
  ])('"%s" names %j', (text, skills) => {
    expect(found(text)).toEqual(skills);
  });

  it.each([
    // An ambiguous form's plural only as written ("Lambda" + "s"): Java's lambdas are its lambda expressions.
    ['Replaced anonymous classes with Java lambdas'], ['Gos and Rs'], ['Sparks flew at the Swifts game'],
  ])('"%s" names no AWS Lambda, Go, R, Apache Spark or Swift', (text) => {
    expect(found(text).filter((s) => ['AWS Lambda', 'Go', 'R', 'Apache Spark', 'Swift'].includes(s))).toEqual([]);
  });

  it('a skills-list entry written in the plural is looked up too', () => {
    expect(taxonomy.lookup('Lambdas')?.name).toBe('AWS Lambda');
    expect(taxonomy.lookup('VPCs')?.name).toBe('Amazon VPC');
  });

  it('every listed plural is of one word of two letters or more, no common or sentence word, and no other form', () => {
    const entries = file.skills as (Entry & { plurals?: string[]; common_words?: string[]; sentence_words?: string[] })[];
    const keys = new Set(entries.flatMap((e) => [e.name, ...e.synonyms].map(norm)));
    const listed = entries.flatMap((e) => (e.plurals ?? []).map((form) => ({ e, form })));
    expect(listed.map(({ e }) => e.name)).toEqual(['AWS Lambda', 'Amazon VPC']);
    for (const { e, form } of listed) {
      expect([e.name, ...e.synonyms]).toContain(form);
      expect(form).toMatch(/^[\p{L}\p{N}]{2,}$/u);
      expect([...(e.common_words ?? []), ...(e.sentence_words ?? [])]).not.toContain(form);
      expect(keys.has(norm(`${form}s`))).toBe(false);
    }
  });

  it('a resume that wrote Go Lambdas used Go and AWS Lambda', async () => {
    const { parseResume } = await import('../../src/modules/resumes/parse/index.js');
    const { parsed } = await parseResume(Buffer.from([
      'Alex Baker', 'alex@example.com | +1 415 555 0100', '',
      'EXPERIENCE', 'Software Engineer, Northwind\tJan 2022 – Present',
      '- Wrote Go Lambdas that settle 40,000 invoices a day for the accounts team.',
      '- Cut the monthly close from five days to two by reconciling the ledgers every night.',
    ].join('\n')), { asOf: '2026-11' });
    expect(parsed.skills).toEqual([
      { name: 'Go', canonical: 'Go', evidence: 'experience' }, { name: 'Lambdas', canonical: 'AWS Lambda', evidence: 'experience' },
    ]);
  });
});

describe('Go before a library\'s name and a plural of what it builds (a review)', () => {
  it.each([
    // Was no Go: "Temporal" is no skill, and a capitalised word that is none was taken for a name ("Elm Street").
    ['Wrote Go Temporal workflows for the billing pipeline'], ['Go Temporal workflows settle 40,000 invoices a day'],
    ['Built Go Cobra CLIs for the SRE team'], ['Shipped Go Fiber APIs and SDKs'], ['Wrote Go Temporal workflows and Rust Tokio services'],
    // A plural of what it builds right after it, at a line's start, is context too.
    ['Go workflows for the billing pipeline'], ['Go binaries for 3 platforms'],
  ])('"%s" names Go', (text) => {
    expect(found(text)).toContain('Go');
  });

  it.each([
    // "Go Live" is the everyday phrase whatever follows (mid-sentence "customers Go live" named Go).
    ['Designed Go Live workflows for onboarding'], ['Ran Go Live services for 12 clients'], ['Helped 14 customers Go live on schedule'],
    ['Go Live: services for 12 clients'],
    // Still the everyday word: a name or an everyday word before the library's.
    ['Pokémon Go Temporal workflows'], ['Let Go Temporal workflows run'], ['On the Go.'], ['Had to let Go of 3 vendors'], ['No Go'],
    ['Worked with Go Daddy on the launch'],
  ])('"%s" names no Go', (text) => {
    expect(found(text)).not.toContain('Go');
  });

  it.each([['Swift Payment APIs for 12 banks', 'Swift'], ['Rust Belt services for 3 cities', 'Rust'], ['Elm Street services', 'Elm']])(
    'only Go reads a capitalised word before a plural as a library: "%s" names no %s', (text, skill) => {
      expect(found(text)).not.toContain(skill);
    });

  it('every plural use of a sentence word is one of its context words', () => {
    const entries = file.skills as (Entry & { plural_uses?: string[]; context?: string[] })[];
    const listed = entries.filter((e) => e.plural_uses);
    expect(listed.map((e) => e.name)).toEqual(['Go']);
    for (const e of listed) for (const w of e.plural_uses!) expect(e.context).toContain(w);
  });
});

it('the "Go Live" and plural-use checks look at the next two words: a 300,000-character line stays fast', () => {
  const line = 'Go Live x. Go Temporal y. '.repeat(11_539);
  const started = performance.now();
  expect(found(line)).toEqual([]);
  expect(performance.now() - started).toBeLessThan(10_000);
});
