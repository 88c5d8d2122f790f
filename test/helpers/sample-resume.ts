/** A plain-text resume with every section the parser reads (contact, summary, two dated roles, education, skills). */
export const TEXT_RESUME = `Maria Gonzalez
maria.gonzalez@example.com | (415) 555-0142 | Austin, TX
linkedin.com/in/maria-gonzalez-example

Summary
Backend engineer with seven years of experience building payment APIs.

Experience
Senior Software Engineer, Northwind Payments   Jan 2020 – Present
- Built a Kafka pipeline in Go processing 40,000 events per second
- Cut p99 latency by 35% by moving hot reads to Redis
Software Engineer, Brightline Health   06/2016 - 12/2019
- Wrote Python services on PostgreSQL and Docker for 2 million patients

Education
University of Texas at Austin — B.S. in Computer Science — 2016

Skills
Go, Python, PostgreSQL, Redis, Kafka, Docker, Kubernetes
`;
