import { describe, expect, it } from 'vitest';
import { createModel } from '../../src/ai/model.js';
import type { InterviewerMove, InterviewSetup } from '../../src/modules/interviews/interviewer/types.js';
import { asksQuestion, movesQuestion, phraseWithModel } from '../../src/modules/interviews/model-interviewer.js';
import { startFakeModel } from '../helpers/fake-model.js';

const setup: InterviewSetup = {
  style: 'behavioral', roundName: 'Behavioral Interview', role: 'Engineer', difficulty: 3, candidateName: null, resume: null, durationMs: 1_800_000,
  plan: [{ position: 0, source: 'bank', questionId: null, title: 'Conflict', prompt: 'Tell me about a conflict.', keyPoints: [], followUps: [], minutes: 10, problem: null }],
};
const move = { text: 'Thanks. How did it turn out in the end, and what changed as a result?', reason: 'probe:star:result', questionPosition: 0 } as InterviewerMove;

/** The model's wording of `move` when the model answers `reply`, and what was streamed to the candidate. */
async function phrase(reply: string, m: InterviewerMove = move, s: InterviewSetup = setup) {
  const fake = await startFakeModel(() => reply);
  try {
    const model = createModel({ baseUrl: fake.env.PREP_MODEL_BASE_URL, name: 'reviewer-1', apiKey: null, timeoutMs: 10_000, concurrency: 1 })!;
    let shown = '';
    const text = await phraseWithModel(model, s, [], m, (piece) => { shown += piece; });
    return { text, shown };
  } finally {
    await fake.close();
  }
}

describe('the model interviewer asks the move\'s question', () => {
  // Was a bug: nothing checked that the model's turn asked the question the move was for: "Thanks for sharing that,
  // it sounds like a tough situation." was stored as the probe, and the candidate was left with nothing to answer.
  it('adds the move\'s question when the model\'s wording dropped it', async () => {
    const { text, shown } = await phrase('Thanks for sharing that, it sounds like a tough situation');
    expect(text).toBe('Thanks for sharing that, it sounds like a tough situation. How did it turn out in the end, and what changed as a result?');
    expect(shown.trim()).toBe(text);
  });

  it('keeps the model\'s wording when it asks a question, or words the question without a question mark', async () => {
    expect((await phrase('That sounds tough. So how did it end, and what changed?')).text).toBe('That sounds tough. So how did it end, and what changed?');
    expect((await phrase('Walk me through how it turned out in the end and what changed as a result.')).text)
      .toBe('Walk me through how it turned out in the end and what changed as a result.');
    // A move that asks nothing (a goodbye) is not given a question.
    const bye = { text: 'Thank you for your time today. Take care!', reason: 'close:end', questionPosition: null } as InterviewerMove;
    expect((await phrase('Thanks so much for your time, take care', bye)).text).toBe('Thanks so much for your time, take care');
  });
});

describe('a model\'s question counts only when it is about the move\'s question', () => {
  const shard = 'How would you shard the orders table when one merchant has 40% of the traffic?';

  // Was a bug: any question mark counted as asking the move's question, so a turn that only checked in ("Great, thanks!
  // Ready for the next one?") was stored as the question: the candidate was never asked it, and the report graded it.
  it('does not take a generic check-in for the question', () => {
    for (const reply of [
      'Great, thanks! Ready for the next one?',
      'Does that make sense?',
      'Okay. Shall we move on?',
      'Any questions before we continue?',
      'How are you feeling so far?',
      // An acknowledgement that echoes the question's words, then a check-in: the question is still not put.
      'Good point about the orders table and that merchant. Sound good?',
      'Thanks for explaining how you would shard the orders table for that merchant. Shall we move on?',
    ]) expect(asksQuestion(reply, shard), reply).toBe(false);
    expect(asksQuestion('Linear time is clean. Shall we move on?', 'What\'s the time and space complexity of that?')).toBe(false);
    expect(asksQuestion('It\'s great that you learned to measure first. Ready for the next one?', 'What did you learn from that?')).toBe(false);
    // Pacing words are not the question's content: "move on" does not ask what the candidate would change.
    expect(asksQuestion('Nice work. Shall we move on?', 'Is there anything you\'d change before we move on?')).toBe(false);
  });

  it('takes a faithful paraphrase: reordered, a lead-in added, a minority of its words said otherwise', () => {
    for (const reply of [
      shard,
      'If one merchant drives 40% of the traffic, how would you partition the orders table?',
      'Great answer. So, thinking about scale: one merchant accounts for 40% of all traffic. How would you go about sharding the orders table?',
      'How would you split the orders table across shards when a single merchant generates 40 percent of requests?',
      'Nice. Now, how would you shard orders if a single merchant has 40% of the load?',
      // Asked, then a check-in: the question is there.
      `${shard} Does that make sense?`,
      // A request with no question mark, as before; or with a check-in after it.
      'Walk me through sharding the orders table when one merchant has 40% of the traffic.',
      'I’d like to hear how you would shard the orders table when one merchant has 40% of the traffic. Ready?',
      'Okay, walk me through sharding the orders table when one merchant has 40% of the traffic. Does that make sense?',
      // The set-up in a sentence of its own.
      'Let\'s talk about the orders table. How would you shard it?',
      'Imagine one merchant has 40% of the traffic. How would you shard the data?',
    ]) expect(asksQuestion(reply, shard), reply).toBe(true);
    expect(asksQuestion('What would the big-O be, in time and memory?', 'What\'s the time and space complexity of that?')).toBe(true);
    expect(asksQuestion('Anything you would change before we move on?', 'Is there anything you\'d change before we move on?')).toBe(true);
    expect(asksQuestion('What was the main lesson you learned?', 'What did you learn from that?')).toBe(true);
  });

  it('takes any one of a move\'s questions in a row, and any question mark only for a question with no content words', () => {
    const result = 'How did it turn out? Was there anything you could measure, like time saved or problems avoided?';
    expect(asksQuestion('So how did it all turn out?', result)).toBe(true);
    expect(asksQuestion('Could you measure anything, such as time saved?', result)).toBe(true);
    expect(asksQuestion('Does that make sense?', result)).toBe(false);
    // "Why this one?" has no content words: the question in a row before it is what must be asked.
    expect(asksQuestion('Ready for the next one?', 'Did you consider any alternatives? Why this one?')).toBe(false);
    expect(asksQuestion('Were there other alternatives you weighed?', 'Did you consider any alternatives? Why this one?')).toBe(true);
    expect(asksQuestion('Okay, and why?', 'Why?')).toBe(true);
  });

  it('adds the question after a check-in, once, streamed as the rest and stored whole', async () => {
    const probe = { text: 'Thanks. How would you shard the orders table when one merchant has 40% of the traffic?', reason: 'probe:data', questionPosition: 0 } as InterviewerMove;
    const { text, shown } = await phrase('Great, thanks! Ready for the next one?', probe);
    expect(text).toBe('Great, thanks! Ready for the next one? How would you shard the orders table when one merchant has 40% of the traffic?');
    expect(shown).toBe(text);
    // A move of two questions in a row has both added ("Why this one?" alone would mean nothing).
    const alternatives = { text: 'Did you consider any alternatives? Why this one?', reason: 'probe:alternatives', questionPosition: 0 } as InterviewerMove;
    expect((await phrase('Got it, thanks. Does that make sense?', alternatives)).text)
      .toBe('Got it, thanks. Does that make sense? Did you consider any alternatives? Why this one?');
    // A paraphrase is kept as the model said it: nothing is added.
    expect((await phrase('Nice. If one merchant drives 40% of the traffic, how would you partition the orders table?', probe)).text)
      .toBe('Nice. If one merchant drives 40% of the traffic, how would you partition the orders table?');
  });
});

describe('a move that asks without a question mark is checked by its request', () => {
  const disagreed = 'Tell me about a time you disagreed with a teammate.';
  const editor = 'I\'ve put the problem in your editor: "Two Sum". Have a read, and when you\'re ready, talk me through how you\'d approach it before you start coding.';
  const ask = (text: string, reason = 'move_on:complete') => ({ text, reason, questionPosition: 0 }) as InterviewerMove;

  it('takes the move\'s request for its question: a behavioural prompt, the opening\'s first question, a coding set-up', () => {
    expect(movesQuestion(`Thanks, that's a clear answer. Next question.\n\n${disagreed}`)).toBe(disagreed);
    // The opening's own words ("…there's no right answer: tell me in your own words…") are not its question.
    const opening = 'Hi Maya, thanks for joining. I\'ll be running this Behavioral Interview with you today.\n\nHere\'s how it will go. '
      + 'When I ask what you think, there\'s no right answer: tell me in your own words, and why. You can type or speak your answers, '
      + `whichever you prefer.\n\nLet's get started. Here's the first question:\n\n${disagreed}`;
    expect(movesQuestion(opening)).toBe(disagreed);
    expect(movesQuestion(`Let's get started.\n\n${editor}`)).toBe(editor);
    // A prompt's examples and list come with its request; a one-paragraph move's lead ("Okay.") does not.
    const prompt = 'Pick the piece of work you are most proud of and tell me about it.\n\nI am less interested in the technology.\n\nPlease cover:\n- what it was;\n- your own part.';
    expect(movesQuestion(`Thanks. Last question.\n\n${prompt}`)).toBe(prompt);
    expect(movesQuestion('Okay. Go ahead in the editor, then. Tell me what you\'re trying as you write it, and run it when you\'re ready.'))
      .toBe('Tell me what you\'re trying as you write it, and run it when you\'re ready.');
    // Nothing asked either way: no question.
    expect(movesQuestion('Okay, keep going, and run it whenever you\'re ready.')).toBe('');
    // The planned question's scenario before its request comes with it, when the move says the prompt.
    const scenario = 'A blog runs on one MySQL primary and three read replicas.\n\nAuthors see the old version after an edit.\n\nExplain what is happening, and how you would route reads.';
    expect(movesQuestion(`Thanks. Next question.\n\n${scenario}`, scenario)).toBe(scenario);
    expect(movesQuestion(`Thanks. Next question.\n\n${scenario}`)).toBe('Explain what is happening, and how you would route reads.');
  });

  // Was a bug: a move whose question had no question mark was never checked, so a model that replaced a behavioural
  // prompt, the first question or a coding set-up with a check-in dropped the question unnoticed.
  it('does not take a check-in for the request, and takes a faithful paraphrase', () => {
    for (const reply of ['Great, let\'s continue!', 'Great, thanks! Ready for the next one?', 'Tell me more.', 'Let\'s talk about teamwork now. Sound good?'])
      expect(asksQuestion(reply, disagreed), reply).toBe(false);
    expect(asksQuestion('Great, let\'s continue!', editor)).toBe(false);
    expect(asksQuestion('Thanks for reading it. Ready when you are!', editor)).toBe(false);
    for (const reply of [
      disagreed,
      'Thanks! Can you tell me about a time you disagreed with someone on your team?',
      'To start, I\'d love to hear about a time when you and a teammate disagreed.',
      'Think of a time you disagreed with a teammate, and walk me through it. Sound good?',
    ]) expect(asksQuestion(reply, disagreed), reply).toBe(true);
    expect(asksQuestion('Two Sum is in your editor now. Read it over, then talk me through your approach before coding.', editor)).toBe(true);
  });

  it('adds the built-in request after a check-in, streamed as the rest and stored whole', async () => {
    const behavioural = await phrase('Great, let\'s continue!', ask(`Thanks, that's a clear answer. Next question.\n\n${disagreed}`));
    expect(behavioural.text).toBe(`Great, let's continue! ${disagreed}`);
    expect(behavioural.shown).toBe(behavioural.text);
    const coding = await phrase('Great, thanks! Ready for the next one?', ask(`Let's get started.\n\n${editor}`, 'ask'));
    expect(coding.text).toBe(`Great, thanks! Ready for the next one? ${editor}`);
    expect(coding.shown).toBe(coding.text);
    // A prompt of several paragraphs is added with its paragraphs.
    const prompt = 'Pick the piece of work you are most proud of and tell me about it.\n\nPlease cover:\n- what it was;\n- your own part.';
    expect((await phrase('Great, let\'s continue', ask(`Thanks. Last question.\n\n${prompt}`))).text).toBe(`Great, let's continue.\n\n${prompt}`);
    // A planned prompt whose request follows its scenario is added whole, scenario first.
    const scenario = 'A blog runs on one MySQL primary and three read replicas.\n\nAuthors see the old version after an edit.\n\nExplain what is happening, and how you would route reads.';
    const design = { ...setup, plan: [{ ...setup.plan[0], prompt: scenario }] };
    expect((await phrase('Great, let\'s continue!', ask(`Thanks. Next question.\n\n${scenario}`), design)).text).toBe(`Great, let's continue!\n\n${scenario}`);
    // A paraphrase is kept as the model said it.
    expect((await phrase('Nice. Now, can you tell me about a time you disagreed with a teammate?', ask(`Thanks. Next question.\n\n${disagreed}`))).text)
      .toBe('Nice. Now, can you tell me about a time you disagreed with a teammate?');
  });
});

describe('a question of pacing and stop words alone is checked by its words as said', () => {
  // Was a bug: "next" is the only content term of "What did you do next?", so "Ready for the next one?" counted as it.
  it('does not take a check-in that shares its one pacing word, and takes the question near word for word', async () => {
    const next = 'What did you do next?';
    for (const reply of ['Great, thanks! Ready for the next one?', 'Okay. Shall we move on to the next part?', 'What did you think?'])
      expect(asksQuestion(reply, next), reply).toBe(false);
    for (const reply of ['So what did you do next?', 'Got it. And what did you do after that?', 'Okay, tell me what you did next.'])
      expect(asksQuestion(reply, next), reply).toBe(true);
    expect(asksQuestion('Ready for the next one?', 'Why?')).toBe(false);
    expect(asksQuestion('Why did you pick that one?', 'Why?')).toBe(true);
    const probe = { text: 'Thanks. What did you do next?', reason: 'probe:star:action', questionPosition: 0 } as InterviewerMove;
    const { text, shown } = await phrase('Great, thanks! Ready for the next one?', probe);
    expect(text).toBe('Great, thanks! Ready for the next one? What did you do next?');
    expect(shown).toBe(text);
  });
});

describe('a task set as an imperative is a request', () => {
  // Was a bug: only "Tell me about", "Walk/Talk me through", "Describe", "Explain" (and a few others) opening a sentence
  // counted as a request, so a prompt that set a task ("Identify …", "Propose …", "Write a query that …") had no question
  // checked, and a model that replaced it with a check-in dropped it unnoticed.
  const ask = (text: string) => ({ text, reason: 'ask', questionPosition: 0 }) as InterviewerMove;
  const identify = 'Finance says the averages are wrong. Identify **every** problem in the expression and rewrite it.';
  const propose = 'The events table is bloated.\n\nPropose a redesign: keys, partitioning, indexes and retention. State the trade-offs.';

  it('takes a task verb followed by what it asks for, at a sentence start or as a clause, for the move\'s question', () => {
    expect(movesQuestion(`Next question.\n\n${identify}`, identify)).toBe(identify);
    expect(movesQuestion(`Next question.\n\n${propose}`, propose)).toBe(propose);
    expect(movesQuestion('Thanks. Next question.\n\nWrite a query that lists every vet with their completed appointments.'))
      .toBe('Write a query that lists every vet with their completed appointments.');
    expect(movesQuestion('Okay. For completed rides, produce one row per city and distance bucket.'))
      .toBe('For completed rides, produce one row per city and distance bucket.');
    expect(movesQuestion('Sure. For each month of 2024, report:\n\n- new customers;\n- total starts.'))
      .toBe('For each month of 2024, report:\n\n- new customers;\n- total starts.');
    for (const task of ['Design the short-link service.', 'Sketch the data model.', 'Estimate how many servers you need.', 'List three ways it could fail.',
      'Outline your rollout plan.', 'Compare the two indexes.', 'Model the controller as a state machine.',
      'Walk through how you would improve the model.'])
      expect(movesQuestion(`Next question.\n\n${task}`), task).toBe(task);
  });

  it('does not take a statement that opens with the same word for a request', () => {
    for (const statement of ['Design reviews matter.', 'Report generation is slow at month end.', 'Write amplification grows with each index.',
      'List prices changed last year.', 'Model training takes a day.', 'Okay, design reviews matter here.'])
      expect(movesQuestion(`Thanks. ${statement}`), statement).toBe('');
  });

  it('adds the task after a check-in, and keeps a faithful paraphrase', async () => {
    const s = { ...setup, style: 'technical' as const, plan: [{ ...setup.plan[0], prompt: identify }] };
    expect(asksQuestion('Great, ready for the next one?', movesQuestion(`Next question.\n\n${identify}`, identify))).toBe(false);
    expect(asksQuestion('Finance thinks the averages are off. Can you identify every problem in that expression and then rewrite it?', identify)).toBe(true);
    expect((await phrase('Great, let\'s continue!', ask(`Next question.\n\n${identify}`), s)).text).toBe(`Great, let's continue! ${identify}`);
  });
});

describe('a design question is checked by its prompt, its invitation optional', () => {
  const prompt = 'A company sends marketing SMS messages with a link in each. Design the short-link service for about 30 million new links a month.';
  const text = `Let's get started. Here's the first question:\n\n${prompt}\n\nWhere would you like to start?`;
  const design = { ...setup, style: 'system_design' as const, plan: [{ ...setup.plan[0], prompt }] };

  // Was a bug: the question checked was the invitation alone ("Where would you like to start?", of one content term),
  // so "Ready to start?" passed and a model that dropped the design prompt itself went unnoticed.
  it('takes the prompt with its invitation for the question, and does not take "Ready to start?" for it', () => {
    expect(movesQuestion(text, prompt)).toBe(`${prompt}\n\nWhere would you like to start?`);
    const question = movesQuestion(text, prompt);
    for (const reply of ['Great, ready to start?', 'Where would you like to start?', 'Okay! So, where would you like to begin?'])
      expect(asksQuestion(reply, question, prompt), reply).toBe(false);
    // A prompt that ends with its own question, the invitation right after it: the prompt's question must be asked.
    const sharding = 'Orders outgrew one PostgreSQL primary. How would you shard the orders table?';
    const asked = movesQuestion(`Next question.\n\n${sharding}\n\nWhere would you like to start?`, sharding);
    expect(asked).toBe(`${sharding}\n\nWhere would you like to start?`);
    expect(asksQuestion('Great, ready to start?', asked, sharding)).toBe(false);
    expect(asksQuestion('So, how would you go about sharding the orders table?', asked, sharding)).toBe(true);
  });

  it('takes the prompt said or restated, with or without the invitation', () => {
    const question = movesQuestion(text, prompt);
    for (const reply of [
      prompt,
      `${prompt} Take your time.`,
      'An SMS marketing company puts a link in every message, about 30 million new links a month. Design the short-link service behind it. Where do you want to begin?',
      'Let\'s design a short-link service for SMS marketing messages: around 30 million new links each month. How would you approach it?',
    ]) expect(asksQuestion(reply, question, prompt), reply).toBe(true);
  });

  it('takes a planned prompt that asks in none of the known ways for the question, checked whole', () => {
    const explain = 'Reviewers want a model they can read, with a few dozen of 3,000 correlated features.\n\nExplain:\n- how L1 and L2 penalties change the coefficients;\n- which one you would use here.';
    const question = movesQuestion(`Let's move on.\n\n${explain}\n\nTake a moment to think it through; feel free to ask clarifying questions before you dive in.`, explain);
    expect(question.startsWith(explain)).toBe(true);
    expect(asksQuestion('Great, ready to start?', question, explain)).toBe(false);
    expect(asksQuestion('Reviewers need a readable model from 3,000 correlated features. How do L1 and L2 penalties change the coefficients, and which would you use?',
      question, explain)).toBe(true);
    // Without the planned prompt said in the move, nothing is taken for a question.
    expect(movesQuestion(`Let's move on.\n\n${explain}`)).toBe('');
  });

  it('adds the prompt and its invitation after a check-in', async () => {
    const { text: said, shown } = await phrase('Great, ready to start?', { text, reason: 'ask', questionPosition: 0 } as InterviewerMove, design);
    expect(said).toBe(`Great, ready to start?\n\n${prompt}\n\nWhere would you like to start?`);
    expect(shown).toBe(said);
  });
});
