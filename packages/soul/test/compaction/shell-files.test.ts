/**
 * The files a shell command writes and reads, as a summary lists them: a
 * redirection's target is no operand of the command (`tee x < in.txt`
 * writes `x` and reads `in.txt`), and a `sed`/`grep` script or pattern is
 * no file, whichever option gives it.
 */
import { describe, expect, it } from "vitest";
import { shellFiles } from "../../src/compaction/shell-files.js";

describe("the files of a command with an input redirection", () => {
  it("are the command's operands and the file read, never `<` or the redirection's file as written", () => {
    expect(shellFiles("tee x.txt < in.txt")).toEqual({ written: ["x.txt"], read: ["in.txt"] });
    expect(shellFiles("tee copy.log <in.txt")).toEqual({ written: ["copy.log"], read: ["in.txt"] });
    expect(shellFiles("sort < data.csv | tee sorted.csv > /dev/null")).toEqual({ written: ["sorted.csv"], read: ["data.csv"] });
    expect(shellFiles('tee -a audit.log 0< "events.jsonl"')).toEqual({ written: ["audit.log"], read: ["events.jsonl"] });
  });

  it("lists no heredoc delimiter, here-string or descriptor as a file", () => {
    expect(shellFiles("tee notes.md << 'EOF'\nsee config.yaml\nEOF")).toEqual({ written: ["notes.md"], read: [] });
    expect(shellFiles("tee notes.md <<-END\n\tx\nEND")).toEqual({ written: ["notes.md"], read: [] });
    expect(shellFiles('tee value.txt <<< "report.txt"')).toEqual({ written: ["value.txt"], read: [] });
    expect(shellFiles("tee copy.txt <&3")).toEqual({ written: ["copy.txt"], read: [] });
  });
});

describe("the script or pattern of sed and grep", () => {
  it("is no file, read or written, whether it comes first or after -e; a script file after -f is read", () => {
    expect(shellFiles("sed -i 's/a.py/b.py/' setup.cfg")).toEqual({ written: ["setup.cfg"], read: [] });
    expect(shellFiles("sudo sed -i -e 's/x/y/' -e 's/p/q/' conf/app.ini")).toEqual({ written: ["conf/app.ini"], read: [] });
    expect(shellFiles("sed -i -f fix.sed app.py")).toEqual({ written: ["app.py"], read: ["fix.sed"] });
    expect(shellFiles("sed -n '1,20p' models.py")).toEqual({ written: [], read: ["models.py"] });
    expect(shellFiles("grep -n -e settings.py README.md")).toEqual({ written: [], read: ["README.md"] });
    expect(shellFiles("grep -rn setup.py docs/index.rst")).toEqual({ written: [], read: ["docs/index.rst"] });
  });
});
