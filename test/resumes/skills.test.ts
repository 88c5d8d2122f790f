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
