import { getLanguageService } from "amazon-states-language-service";
import { TextDocument } from "vscode-languageserver-textdocument";
import { describe, expect, test } from "vitest";
import { CONTEXT_DEFAULTS } from "../../lib/deploy-config";
import { loadDispatchDefinition } from "../../statemachine/dispatch-definition";
import { aslText, ASL_FILES, type AslFile } from "./definitions";

/**
 * AWS's own ASL validator, the one behind the Step Functions editors of the AWS Toolkit
 * (npm amazon-states-language-service): JSON schema of every state type and field, transitions, terminal states,
 * JSONPath and intrinsic-function syntax. Stricter than the local engine, which runs what it can.
 */
const service = getLanguageService({});

async function diagnostics(name: string, text: string): Promise<string[]> {
  const document = TextDocument.create(`file:///${name}`, "asl", 0, text);
  const found = await service.doValidation(document, service.parseJSONDocument(document));
  return found.map((diagnostic) => `${name}:${diagnostic.range.start.line + 1}: ${diagnostic.message}`);
}

/** What CloudFormation's DefinitionSubstitutions put in at deploy: ARNs of the shapes the stack passes. */
const ARN_OF: Record<string, string> = {
  SyncPagesStateMachineArn: "arn:aws:states:eu-west-1:123456789012:stateMachine:CrmIntegration-SyncPages",
  SyncStateMachineArn: "arn:aws:states:eu-west-1:123456789012:stateMachine:CrmIntegration-Sync",
};
const arnOf = (placeholder: string) =>
  ARN_OF[placeholder] ?? `arn:aws:lambda:eu-west-1:123456789012:function:CrmIntegration-${placeholder.replace(/FunctionArn$/, "")}:live`;

function filled(file: AslFile): string {
  // The dispatch file holds 0 for the cap's three numbers; both runtimes write them in (statemachine/dispatch-definition.ts).
  const text = file === "dispatch.asl.json" ? JSON.stringify(loadDispatchDefinition(CONTEXT_DEFAULTS.maxConcurrentRuns), null, 2) : aslText(file);
  return text.replace(/\$\{([A-Za-z0-9_]+)\}/g, (_, placeholder: string) => arnOf(placeholder));
}

describe("amazon-states-language-service (AWS's ASL validator)", () => {
  test.each(Object.keys(ASL_FILES) as AslFile[])("%s has 0 diagnostics, as written and with its substitutions filled", async (file) => {
    const substituted = filled(file);
    expect(substituted).not.toMatch(/\$\{/);
    expect([...(await diagnostics(file, aslText(file))), ...(await diagnostics(`${file} (filled)`, substituted))]).toEqual([]);
  });

  test("the validator does report what AWS would refuse (so 0 above means something)", async () => {
    const broken = JSON.stringify({ StartAt: "A", States: { A: { Type: "Task", Resource: "arn:aws:states:::lambda:invoke", Retry: [{ ErrorEquals: ["States.ALL"], MaxAttempts: "3" }], Next: "Nowhere" } } });
    expect((await diagnostics("broken", broken)).length).toBeGreaterThanOrEqual(2);
  });
});
