/**
 * The catalogue of aggregates: for each, its decider, its events, where its streams live and which
 * stream a command goes to. Commands run through one generic service (commandService.ts).
 */
import type { ActionCommand } from '../domain/action/commands.js';
import { actionDecider, type ActionState } from '../domain/action/decider.js';
import { actionEvents, type ActionEvent } from '../domain/action/events.js';
import type { ConversationCommand } from '../domain/conversation/commands.js';
import { conversationDecider, type ConversationState } from '../domain/conversation/decider.js';
import { conversationEvents, type ConversationEvent } from '../domain/conversation/events.js';
import type { CollectionCommand } from '../domain/collection/commands.js';
import { collectionDecider } from '../domain/collection/decider.js';
import { collectionEvents } from '../domain/collection/events.js';
import type { DocumentCommand } from '../domain/document/commands.js';
import { documentDecider, type DocumentState } from '../domain/document/decider.js';
import { documentEvents, type DocumentEvent } from '../domain/document/events.js';
import type { OnboardingCommand } from '../domain/onboarding/commands.js';
import { onboardingDecider, type OnboardingState } from '../domain/onboarding/decider.js';
import { onboardingEvents, type OnboardingEvent } from '../domain/onboarding/events.js';
import type { SettingsCommand } from '../domain/settings/commands.js';
import { settingsDecider, type SettingsState } from '../domain/settings/decider.js';
import { ASSISTANT_SETTINGS_ID, settingsEvents, type SettingsEvent } from '../domain/settings/events.js';
import type { TaskCommand } from '../domain/task/commands.js';
import { taskDecider, type TaskState } from '../domain/task/decider.js';
import { taskEvents, type TaskEvent } from '../domain/task/events.js';
import type { ReservationCommand } from '../domain/reservation/commands.js';
import { reservationDecider } from '../domain/reservation/decider.js';
import { reservationEvents } from '../domain/reservation/events.js';
import type { UserCommand } from '../domain/user/commands.js';
import { userDecider, type UserState } from '../domain/user/decider.js';
import { userEvents, type UserEvent } from '../domain/user/events.js';
import { defineAggregate } from './aggregate.js';
import type { CommandOutcome } from './commandHandler.js';
import type { CommandService } from './commandService.js';

export const taskAggregate = defineAggregate({
  category: 'task',
  decider: taskDecider,
  events: taskEvents,
  idOf: (command: TaskCommand) => command.data.taskId,
  purgedBy: ['TaskPurged'],
});

export const documentAggregate = defineAggregate({
  category: 'document',
  decider: documentDecider,
  events: documentEvents,
  idOf: (command: DocumentCommand) => command.data.docId,
  purgedBy: ['DocumentDeleted'],
});

/** A collection's grants, one stream per collection (`collection-<name>`). */
export const collectionAggregate = defineAggregate({
  category: 'collection',
  decider: collectionDecider,
  events: collectionEvents,
  idOf: (command: CollectionCommand) => command.data.collection,
});

export const conversationAggregate = defineAggregate({
  category: 'conversation',
  decider: conversationDecider,
  events: conversationEvents,
  idOf: (command: ConversationCommand) => command.data.conversationId,
  // A conversation may hold thousands of messages: an append folds at most this many events.
  snapshot: { every: 200, schema: 1 },
  purgedBy: ['ConversationPurged'],
});

export const actionAggregate = defineAggregate({
  category: 'action',
  decider: actionDecider,
  events: actionEvents,
  idOf: (command: ActionCommand) => command.data.actionId,
});

export const userAggregate = defineAggregate({
  category: 'user',
  decider: userDecider,
  events: userEvents,
  idOf: (command: UserCommand) => command.data.userId,
});

/** One stream, `settings-assistant`. */
export const settingsAggregate = defineAggregate({
  category: 'settings',
  decider: settingsDecider,
  events: settingsEvents,
  idOf: (_command: SettingsCommand) => ASSISTANT_SETTINGS_ID,
});

/** Streams `onboarding-<session id>`. */
export const onboardingAggregate = defineAggregate({
  category: 'onboarding',
  decider: onboardingDecider,
  events: onboardingEvents,
  idOf: (command: OnboardingCommand) => command.data.sessionId,
});

/** Unique keys (streams `reservation-<kind>-<key>`): one document per source or content, one user per name. */
export const reservationAggregate = defineAggregate({
  category: 'reservation',
  decider: reservationDecider,
  events: reservationEvents,
  idOf: (command: ReservationCommand) => `${command.data.kind}-${command.data.key}`,
});

export type TaskCommands = CommandService<TaskCommand, TaskEvent, TaskState>;
export type DocumentCommands = CommandService<DocumentCommand, DocumentEvent, DocumentState>;
export type ConversationCommands = CommandService<ConversationCommand, ConversationEvent, ConversationState>;
export type ActionCommands = CommandService<ActionCommand, ActionEvent, ActionState>;
export type UserCommands = CommandService<UserCommand, UserEvent, UserState>;
export type SettingsCommands = CommandService<SettingsCommand, SettingsEvent, SettingsState>;
export type OnboardingCommands = CommandService<OnboardingCommand, OnboardingEvent, OnboardingState>;

export type ActionOutcome = CommandOutcome<ActionEvent, ActionState>;
