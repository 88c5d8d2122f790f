export { briefFingerprint, normaliseBrief, type Brief } from './brief.js';
export { extractRequirements, type Requirement } from './requirements.js';
export { IGNORED, SCORER_VERSION, scoreResume } from './score.js';
export type { Criterion, Evidence, ResumeScore, ScoreOptions } from './types.js';
