/** The `Skill` tool: the model loads a skill's instructions (or reads one of its files) when a task needs it. */
import { toolError, toolOk } from "@kosong/core";
import { defineBuiltInTool } from "../tools/built-in-tool.js";
import * as z from "zod";
import { loadSkillBody, readSkillFile, type Skill } from "./skills.js";

/** The parameters of `Skill` (listed in `tools/built-in-tool-parameters.ts`). */
export const skillToolParameters = z.lazy(() => z.object({
  name: z.string().min(1).max(100).describe("The skill's name, as listed under Skills in the system prompt."),
  file: z.string().min(1).max(500).optional().describe("A file of the skill's folder to read (relative to it), instead of its instructions."),
}));

/** Builds `Skill` over `skills`. */
export function skillTool(skills: readonly Skill[]) {
  return defineBuiltInTool({
    name: "Skill",
    description: "Load a skill's instructions (listed under Skills in the system prompt) before doing a task it covers, or read one of its files.",
    parameters: skillToolParameters,
    async execute({ name, file }) {
      const skill = skills.find((s) => s.name === name);
      if (!skill) return toolError({ message: `No skill "${name}". Skills: ${skills.map((s) => s.name).join(", ") || "none"}.`, brief: "no such skill" });
      try {
        if (file !== undefined) return toolOk({ output: await readSkillFile(skill, file), brief: `${skill.name}/${file}` });
        const { body, files } = await loadSkillBody(skill);
        const listed = files.length > 0 ? `\n\nFiles of this skill (read one with Skill {"name": "${skill.name}", "file": "<path>"}): ${files.join(", ")}` : "";
        return toolOk({ output: `${body}${listed}`, brief: `skill ${skill.name}` });
      } catch (error) {
        return toolError({ message: error instanceof Error ? error.message : String(error), brief: "skill not readable" });
      }
    },
  });
}
