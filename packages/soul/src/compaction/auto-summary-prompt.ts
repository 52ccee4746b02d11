/**
 * AutoCompaction's structured summary: the eight sections Kode asks for
 * (in our own words), and the checks that reject a summary that is not one.
 */
import type { FinishReason } from "@kosong/core";

/** The section headings every structured summary must have, in order. */
export const AUTO_SUMMARY_SECTIONS = [
  "Technical Context",
  "Project Overview",
  "Code Changes",
  "Debugging and Issues",
  "Current Status",
  "Pending Tasks",
  "User Preferences",
  "Key Decisions",
] as const;

/** The instructions of AutoCompaction's summary. */
export const AUTO_SUMMARY_PROMPT = `Write a summary of the conversation above that lets the work continue without it. Use exactly these eight markdown headings, in this order, and write "None." under a heading with nothing to report:

## Technical Context
Languages, frameworks, libraries, tools and versions in use; how the project is laid out; technical constraints.

## Project Overview
What the project is for, its main parts and how they fit together: modules, data models, APIs.

## Code Changes
Every file created, changed or studied, with what was done to it: functions, algorithms, configuration.

## Debugging and Issues
Each problem met: the error as reported, its cause, the fix and whether it worked.

## Current Status
What was just finished, the state the code is in, and what the last tests and checks showed.

## Pending Tasks
What comes next, in order, and the known issues that remain open.

## User Preferences
How the user wants things done: style, tools, workflow, ways of working together. Quote short instructions word for word.

## Key Decisions
The technical choices made, why, and the alternatives that were turned down.

Be specific: keep file paths, names, commands, error messages and numbers exactly as written.`;

/** Why a summary was rejected, or null when it is acceptable. */
export type SummaryRejection = "empty" | "error-like" | "acknowledgement" | "truncated" | "missing-sections";

/** A text that reads like an error or a refusal. */
export const ERROR_LIKE = /^\s*(\[?error\]?\s*:|sorry\b|i('m| am) (sorry|unable)|i can(no|')t\b|unable to\b|as an ai\b)/i;
/** A markdown heading; numbering (`1.`), bold markers and a trailing colon around its title are ignored. */
const HEADING = /^#{1,6}[ \t]*(?:\d+[.)][ \t]*)?(?:\*\*)?(.+?)(?:\*\*)?:?[ \t]*#*[ \t]*$/gm;
/** A text that is only an acknowledgement ("Sure, here it is."). */
export const ACKNOWLEDGEMENT = /^\s*(ok(ay)?|sure|got it|understood|done|will do|certainly|of course|yes|noted|acknowledged)\b[\s\S]{0,80}$/i;

/**
 * Checks a summary: rejected when it is empty, reads like an error or a
 * refusal, is only an acknowledgement ("Sure, here it is."), was cut off at
 * the output limit (`finishReason` `max_tokens`), or lacks any of the
 * {@link AUTO_SUMMARY_SECTIONS} headings.
 */
export function checkSummary(text: string, finishReason: FinishReason | null): SummaryRejection | null {
  if (text.trim() === "") return "empty";
  if (finishReason === "max_tokens") return "truncated";
  if (ERROR_LIKE.test(text)) return "error-like";
  if (ACKNOWLEDGEMENT.test(text)) return "acknowledgement";
  const headings = new Set([...text.matchAll(HEADING)].map((m) => m[1]!.toLowerCase().replace(/\s*&\s*/, " and ")));
  if (AUTO_SUMMARY_SECTIONS.some((section) => !headings.has(section.toLowerCase()))) return "missing-sections";
  return null;
}
