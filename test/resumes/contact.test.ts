import { describe, expect, it } from 'vitest';
import { parseResume } from '../../src/modules/resumes/parse/index.js';
import { scoreResume } from '../../src/modules/resumes/scoring/index.js';

const AS_OF = '2026-11';
const resume = (contact: string, bullet = '- Built SQL reports in Tableau for 40 store managers and cut reporting time by half.') => Buffer.from([
  'Zoë Müller',
  contact,
  '',
  'EXPERIENCE',
  'Data Analyst, Acme Foods\tJan 2019 - Present',
  bullet,
  '- Trained the team of analysts to run the weekly reports themselves, saving hours every week.',
].join('\n'));

describe('e-mail addresses with letters beyond ASCII (a review)', () => {
  it.each([
    ['a local part with umlauts', 'zoë.müller@web.de | +49 30 1234567'],
    ['a domain with an umlaut', 'zoe.mueller@exämple.de | +49 30 1234567'],
  ])('%s is read whole, and no piece of it is taken for a web site', async (_case, contact) => {
    const { parsed } = await parseResume(resume(contact), { asOf: AS_OF });
    expect(parsed.email).toBe(contact.split(' | ')[0]);
    expect(parsed.links.site).toBeNull();
  });

  it('an address in a bullet is redacted whole in evidence quotes (no piece of the name is left)', async () => {
    const result = await parseResume(resume('+49 30 1234567', '- Built SQL reports in Tableau; questions to zoë.müller@firma.de for 40 store managers.'), { asOf: AS_OF });
    const score = scoreResume(result, { role: null, job_description: 'Requirements:\n- SQL and Tableau' }, { asOf: AS_OF });
    const quotes = score.requirements.flatMap((r) => r.evidence.map((e) => e.text));
    expect(quotes.some((q) => q.includes('[email]'))).toBe(true);
    expect(quotes.join(' ')).not.toMatch(/zoë|mü/i);
  });
});

describe('phone numbers with the country code written the other usual ways (a review)', () => {
  it.each([
    ['(+44) 7911 123456', '+447911123456'],
    ['Mobile: +(44) 7911 123 456', '+447911123456'],
    ['Tel: 0049 30 1234567', '+49301234567'],
    ['0044 20 7946 0958', '+442079460958'],
    ['(+1) 415 555 0132', '+14155550132'],
    ['(415) 555-0132', '+14155550132'],
  ])('%s', async (written, e164) => {
    const { parsed } = await parseResume(resume(`zoe@example.com | ${written}`), { asOf: AS_OF });
    expect(parsed.phone).toBe(e164);
  });
});

it('a group of digits starting 00 inside a number is left as it is', async () => {
  for (const [written, e164] of [['+44 20 7946 0096', '+442079460096'], ['+31 20 472 0025', '+31204720025'], ['(415) 555-0099', '+14155550099']]) {
    const { parsed } = await parseResume(resume(`zoe@example.com | ${written}`), { asOf: AS_OF });
    expect(parsed.phone).toBe(e164);
  }
});

describe('a national phone number read in the country the header gives (a review)', () => {
  it.each([
    ['London, UK | sam@example.co.uk | 020 7946 0958', '+442079460958'],
    ['Manchester, United Kingdom | 0161 496 0123', '+441614960123'],
    ['Berlin, Germany | 030 1234567', '+49301234567'],
    ['Lyon, France | 04 72 00 00 00', '+33472000000'],
    ['Austin, TX | (512) 555-0100', '+15125550100'],
    ['London, UK | (415) 555-0100', '+14155550100'],
    ['sam@example.com | (415) 555-0100', '+14155550100'],
  ])('%s → %s', async (contact, phone) => {
    const { parsed } = await parseResume(resume(contact), { asOf: AS_OF });
    expect(parsed.phone).toBe(phone);
  });
});

describe('a header piece named like an object\'s own property', () => {
  // Was a bug: the header's pieces were looked up as cities with CITIES[piece], so "Constructor" found Object's own
  // function and took it for the phone's country: the e-mail's domain (`.de`) was then not asked, and the German
  // number was not read.
  it.each(['Constructor', 'constructor', 'CONSTRUCTOR'])('%s is no city: the number is read in the e-mail\'s country', async (piece) => {
    const { parsed } = await parseResume(resume(`${piece} | kim@firma.de | 030 1234567`), { asOf: AS_OF });
    expect(parsed.phone).toBe('+49301234567');
    expect(parsed.location).toBeNull();
  });
});

describe('a national phone number read in the country other header signals give (a review)', () => {
  it.each([
    ['Germany | 030 1234567', '+49301234567'],
    ['Location: France | 04 72 00 00 00', '+33472000000'],
    ['sam@example.com | Munich, Bavaria, Germany | 030 1234567', '+49301234567'],
    ['221B Baker Street, London NW1 6XE, United Kingdom | 020 7946 0958', '+442079460958'],
    ['London | 020 7946 0958', '+442079460958'],
    ['Munich, Bavaria | 089 1234567', '+49891234567'],
    ['Berlin\n030 1234567', '+49301234567'],
    // A US state, or a number valid only in the US, stays American.
    ['Paris, TX | (903) 555-0100', '+19035550100'],
    ['London | (415) 555-0100', '+14155550100'],
    ['Georgia | (404) 555-0100', '+14045550100'],
    ['London, Ontario | (519) 555-0100', '+15195550100'],
    ['Paris, Texas | (903) 555-0100', '+19035550100'],
  ])('%s → %s', async (contact, phone) => {
    const { parsed } = await parseResume(resume(contact), { asOf: AS_OF });
    expect(parsed.phone).toBe(phone);
  });

  it('a country named in a sentence of the header is no signal', async () => {
    const { parsed } = await parseResume(resume('sam@example.com | (212) 555-0100\nWorked in Germany, France'), { asOf: AS_OF });
    expect(parsed.phone).toBe('+12125550100');
  });
});

describe('a national phone number read in the country of the e-mail or LinkedIn address when the header names none', () => {
  it.each([
    ['sam@firma.de | 030 1234567', '+49301234567'],
    ['sam@example.co.uk | 020 7946 0958', '+442079460958'],
    ['sam@firma.fr | 01 42 68 53 00', '+33142685300'],
    ['de.linkedin.com/in/sam-taylor | 030 1234567', '+49301234567'],
    ['sam@example.com | https://uk.linkedin.com/in/sam-taylor | 020 7946 0958', '+442079460958'],
    // The e-mail before the LinkedIn subdomain.
    ['sam@firma.de | fr.linkedin.com/in/sam-taylor | 030 1234567', '+49301234567'],
    // A place the header names comes first: a country, a city, a US state.
    ['Lyon, France | sam@firma.de | 04 72 00 00 00', '+33472000000'],
    ['London | sam@firma.de | 020 7946 0958', '+442079460958'],
    ['Austin, TX | sam@firma.de | 030 1234567', null],
    // A number that is a valid North American one stays one (a domain says less than a place).
    ['sam@firma.de | (415) 555-0100', '+14155550100'],
    ['de.linkedin.com/in/sam-taylor | 415-555-0100', '+14155550100'],
  ])('%s → %s', async (contact, phone) => {
    const { parsed } = await parseResume(resume(contact), { asOf: AS_OF });
    expect(parsed.phone).toBe(phone);
  });

  it.each([
    ['sam@example.com | 030 1234567'], ['sam@startup.io | 030 1234567'], ['sam@studio.co | 020 7946 0958'],
    ['sam@lab.ai | 020 7946 0958'], ['sam@example.eu | 030 1234567'], ['www.linkedin.com/in/sam-taylor | 030 1234567'],
  ])('a generic domain gives no country: %s', async (contact) => {
    const { parsed } = await parseResume(resume(contact), { asOf: AS_OF });
    expect(parsed.phone).toBeNull();
  });

  it('a LinkedIn profile on a country subdomain is the LinkedIn link, not a personal site', async () => {
    const { parsed } = await parseResume(resume('sam@example.com | de.linkedin.com/in/sam-taylor | +49 30 1234567'), { asOf: AS_OF });
    expect(parsed.links).toEqual({ linkedin: 'https://de.linkedin.com/in/sam-taylor', github: null, site: null });
  });
});

describe('a city or a country written alone in the header is the location', () => {
  it.each([
    ['sam@example.com | Berlin | +49 30 1234567', 'Berlin'],
    ['Location: Germany | sam@example.com', 'Germany'],
    ['sam@example.com | +44 20 7946 0958\nLondon', 'London'],
    ['München • sam@example.com', 'München'],
    ['sam@example.com | UK', 'UK'],
    ['Based in: The Netherlands | sam@example.com', 'The Netherlands'],
    ['sam@example.com | São Paulo', 'São Paulo'],
    // A "City, Region" piece is still the location, wherever it stands.
    ['Berlin | sam@example.com | Austin, TX', 'Austin, TX'],
    ['Remote | sam@example.com', 'Remote'],
  ])('%s → %s', async (contact, location) => {
    const { parsed } = await parseResume(resume(contact), { asOf: AS_OF });
    expect(parsed.location).toBe(location);
  });

  it.each([
    // A country that is also a US state or a given name, a city not on the list, a place in a sentence or in lower case.
    ['Georgia | sam@example.com'], ['sam@example.com | India'], ['sam@example.com | Springfield'],
    ['sam@example.com\nWorked in Germany and France'], ['sam@example.com | berlin'], ['sam@example.com | Data Engineer'],
  ])('%s has no location', async (contact) => {
    const { parsed } = await parseResume(resume(contact), { asOf: AS_OF });
    expect(parsed.location).toBeNull();
  });

  it('the phone is still read in the country of the city written alone', async () => {
    const { parsed } = await parseResume(resume('Munich | 089 1234567'), { asOf: AS_OF });
    expect([parsed.location, parsed.phone]).toEqual(['Munich', '+49891234567']);
  });
});

describe('a place written with its country, or a city not on the short list, is the location (a review)', () => {
  it.each([
    // Was no location: only "City, Region" (one comma) or a city of the short list alone was read.
    ['sam@example.com | Munich, Bavaria, Germany', 'Munich, Bavaria, Germany'],
    ['New York, NY, USA | sam@example.com', 'New York, NY, USA'],
    ['sam@example.com | Frankfurt am Main, Hesse, Germany', 'Frankfurt am Main, Hesse, Germany'],
    ['sam@example.com | Rio de Janeiro, RJ, Brazil', 'Rio de Janeiro, RJ, Brazil'],
    ['sam@example.com | Atlanta, GA, USA', 'Atlanta, GA, USA'],
    // A city not on the list, with its country or region, was already read, and still is.
    ['sam@example.com | Porto Alegre, Brazil', 'Porto Alegre, Brazil'],
    ['sam@example.com | Kraków, Poland', 'Kraków, Poland'],
    ['sam@example.com | San Francisco, CA', 'San Francisco, CA'],
    ['sam@example.com | Spring, TX', 'Spring, TX'],
    ['sam@example.com | College Station, TX', 'College Station, TX'],
    // A headline before the place no longer hides it.
    ['Data Engineer, Google | sam@example.com | Kraków, Poland', 'Kraków, Poland'],
  ])('%s → %s', async (contact, location) => {
    const { parsed } = await parseResume(resume(contact), { asOf: AS_OF });
    expect(parsed.location).toBe(location);
  });

  it.each([
    // A headline, a list of skills, a skill before a country, an employer's address, a sentence: no place.
    ['sam@example.com | Data Engineer, Google'], ['Senior Engineer, Germany | sam@example.com'], ['sam@example.com | Python, Java'],
    ['sam@example.com | Python, Germany'], ['sam@example.com | Kubernetes, Docker, Germany'], ['sam@example.com | Acme GmbH, Munich, Germany'],
    ['sam@example.com | Worked in Germany, France, Spain'], ['sam@example.com | Munich, Bavaria, DE'],
  ])('%s has no location', async (contact) => {
    const { parsed } = await parseResume(resume(contact), { asOf: AS_OF });
    expect(parsed.location).toBeNull();
  });

  it('the phone is read in the country of a "City, Region, Country" location', async () => {
    const { parsed } = await parseResume(resume('Munich, Bavaria, Germany | 089 1234567'), { asOf: AS_OF });
    expect([parsed.location, parsed.phone]).toEqual(['Munich, Bavaria, Germany', '+49891234567']);
  });
});
