#!/usr/bin/env python3
"""Checks that the agent skill (skills/rocm-perf) cannot drift from the tool: every command and
flag it names exists in that command's --help, every JSON field it names (written `doc.json:path`,
`[]` for an array's items) exists in schemas/<doc>.schema.json, and every command of the tool has
a line in SKILL.md and a reference file. Prints each problem; exits 1 when there is any.
   usage: check_skill.py ROCM_PERF SKILL_DIR SCHEMA_DIR"""
import json
import pathlib
import re
import subprocess
import sys

tool, skill_dir, schema_dir = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
problems = []
help_cache = {}


def help_of(path):
    """Option names and subcommands of `rocm-perf PATH --help`; None where the command does not exist."""
    key = tuple(path)
    if key not in help_cache:
        r = subprocess.run([tool, *path, "--help"], capture_output=True, text=True)
        if r.returncode != 0:
            help_cache[key] = None
        else:
            options = set(re.findall(r"^\s+(?:(-\w),)?(--[\w-]+)", r.stdout, re.M))
            names = {n for pair in options for n in pair if n}
            subs = []
            if "Subcommands:" in r.stdout:
                subs = re.findall(r"^  ([a-z][\w-]*)\s", r.stdout.split("Subcommands:", 1)[1], re.M)
            help_cache[key] = (names | {"-h", "--help"}, subs)
    return help_cache[key]


def commands_in(text):
    """Each `rocm-perf ...` command line of a code span or fenced block, with its continuation lines."""
    found = []
    for block in re.findall(r"```[^\n]*\n(.*?)```", text, re.S):
        current = None
        for line in block.splitlines():
            if line.strip().startswith("rocm-perf "):
                if current:
                    found.append(current)
                current = line.strip()
            elif current and line.startswith(" ") and line.strip():
                current += " " + line.strip()
            else:
                if current:
                    found.append(current)
                current = None
        if current:
            found.append(current)
    text_without_blocks = re.sub(r"```.*?```", "", text, flags=re.S)
    found += [span for span in re.findall(r"`([^`\n]*)`", text_without_blocks) if span.startswith("rocm-perf ")]
    return found


def check_command(line, where):
    words = line.split()
    if len(words) < 2 or words[1].startswith("-"):
        if len(words) > 1 and words[1] not in ("--version", "--help"):
            problems.append(f"{where}: `{line}`: no command")
        return
    path = [words[1]]
    top = help_of(path)
    if top is None:
        problems.append(f"{where}: `{line}`: rocm-perf has no command '{words[1]}'")
        return
    if top[1]:
        if len(words) < 3 or words[2] not in top[1]:
            problems.append(f"{where}: `{line}`: '{words[1]}' needs one of {', '.join(top[1])}")
            return
        path.append(words[2])
    names, _ = help_of(path)
    for flag in re.findall(r"(?:^|[\s\[|])(--?[A-Za-z][\w-]*)", line):
        if flag not in names:
            problems.append(f"{where}: `{line}`: {' '.join(path)} has no option {flag}")


def resolve(schema, node, segments, doc):
    """Whether the path of segments exists under the schema node (following $ref, oneOf, anyOf, allOf)."""
    if not segments:
        return True
    if not isinstance(node, dict):
        return False
    if "$ref" in node:
        ref = node["$ref"]
        name, _, pointer = ref.partition("#")
        target = schema if not name else load(name.rsplit(":", 1)[-1])
        for part in pointer.strip("/").split("/") if pointer else []:
            target = target[part]
        if resolve(schema if not name else load(name.rsplit(":", 1)[-1]), target, segments, doc):
            return True
    for key in ("oneOf", "anyOf", "allOf"):
        if any(resolve(schema, option, segments, doc) for option in node.get(key, [])):
            return True
    head, rest = segments[0], segments[1:]
    items = head.endswith("[]")
    name = head[:-2] if items else head
    child = node.get("properties", {}).get(name)
    if child is None:
        return False
    return resolve_items(schema, child, rest, doc) if items else resolve(schema, child, rest, doc)


def resolve_items(schema, node, rest, doc):
    if not isinstance(node, dict):
        return False
    if "items" in node:
        return resolve(schema, node["items"], rest, doc)
    if "$ref" in node:
        name, _, pointer = node["$ref"].partition("#")
        owner = schema if not name else load(name.rsplit(":", 1)[-1])
        target = owner
        for part in pointer.strip("/").split("/") if pointer else []:
            target = target[part]
        return resolve_items(owner, target, rest, doc)
    return any(resolve_items(schema, o, rest, doc) for k in ("oneOf", "anyOf", "allOf") for o in node.get(k, []))


schemas = {}


def load(name):
    if name not in schemas:
        schemas[name] = json.loads((schema_dir / f"{name}.schema.json").read_text())
    return schemas[name]


def check_field(doc, path, where):
    if not (schema_dir / f"{doc}.schema.json").exists():
        problems.append(f"{where}: {doc}.json has no schema in {schema_dir}")
        return
    schema = load(doc)
    if not resolve(schema, schema, path.split("."), doc):
        problems.append(f"{where}: {doc}.json has no field {path} (schemas/{doc}.schema.json)")


skill = skill_dir / "SKILL.md"
text = skill.read_text()
front = re.match(r"---\nname: (\S+)\ndescription: (.+?)\n---\n", text, re.S)
if not front:
    problems.append("SKILL.md: no front matter with name and description")
files = [skill] + sorted((skill_dir / "references").glob("*.md"))
for f in files:
    content = f.read_text()
    where = f.relative_to(skill_dir)
    for line in commands_in(content):
        check_command(line, where)
    for doc, path in re.findall(r"\b([a-z][a-z-]*)\.json:([A-Za-z0-9_.\[\]]+[A-Za-z0-9_\]])", content):
        check_field(doc, path, where)

top = subprocess.run([tool, "--help"], capture_output=True, text=True).stdout
for command in re.findall(r"^  ([a-z][\w-]*)\s", top.split("Subcommands:", 1)[1], re.M):
    if f"rocm-perf {command}" not in text:
        problems.append(f"SKILL.md: says nothing of `rocm-perf {command}`")
    if not (skill_dir / "references" / f"{command}.md").exists():
        problems.append(f"references/{command}.md: missing")

for p in problems:
    print(p)
print(f"{len(files)} files checked, {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
