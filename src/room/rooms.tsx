import type { ComponentType } from 'preact';
import { CodingRoom } from './coding-room.js';
import { InterviewRoom } from './interview-room.js';
import type { RoomProps } from './lifecycle.js';
import { PromptRoom } from './prompt-room.js';
import { QuestionnaireRoom } from './questionnaire-room.js';

/** One room per subject_kind: a new kind's room is a component added here, not a fork of another room. */
export const ROOMS: Partial<Record<string, ComponentType<RoomProps>>> = {
  coding: CodingRoom,
  psychometric: QuestionnaireRoom,
  prompt_engineering: PromptRoom,
  interview: InterviewRoom,
};
