"""The play page's JavaScript passes ESLint (pinned in package.json, installed from npm by its
lockfile): the files in service/web are served as they are, with no build step to catch errors.
And ESLint's rule against writing HTML as a string (eslint.config.js) is there and fires."""

import json
import subprocess
from pathlib import Path

import pytest

from tests.support.shared_folders import node_tools

ROOT = Path(__file__).resolve().parents[2]


def _eslint(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    node_tools(ROOT, ".bin/eslint")
    return subprocess.run(
        ["npx", "--no-install", "eslint", "--max-warnings", "0", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_pages_scripts_pass_eslint():
    result = _eslint("service/web")
    assert result.returncode == 0, result.stdout + result.stderr


def _lint_as_a_page_script(code: str) -> list[dict]:
    """ESLint's messages for ``code`` as if it were a file in service/web: it is given on stdin
    with such a name, so the page's rules apply and nothing is written where files are served."""
    result = _eslint("--stdin", "--stdin-filename", "service/web/sample.js", "--format", "json", stdin=code)
    return [m for file in json.loads(result.stdout) for m in file["messages"]]


@pytest.mark.parametrize(
    "code",
    [
        "export const show = (element, name) => { element.innerHTML = name; };",
        "export const show = (element, name) => { element.outerHTML = `<b>${name}</b>`; };",
        'export const show = (element, name) => element.insertAdjacentHTML("beforeend", name);',
    ],
)
def test_eslint_refuses_html_written_as_a_string(code):
    """A player's name put into innerHTML once ran script in the other players' pages: outside
    html.js's escaping templates, no script may write HTML as a string."""
    messages = _lint_as_a_page_script(code)
    assert [m["ruleId"] for m in messages] == ["no-restricted-properties"], messages
    assert "html.js" in messages[0]["message"]


def test_the_same_text_through_a_template_passes():
    """The way the pages do it, so the refusals above come from the rule, not from the setup."""
    code = 'import { html, render } from "/web/html.js";\nexport const show = (element, name) => render(html`<b>${name}</b>`, element);\n'
    assert _lint_as_a_page_script(code) == []


def test_lit_html_is_imported_only_through_html_js():
    messages = _lint_as_a_page_script('import { render } from "/web/vendor/lit-html.js";\nexport { render };\n')
    assert [m["ruleId"] for m in messages] == ["no-restricted-imports"], messages


@pytest.mark.parametrize(
    "code",
    [
        'export const load = () => fetch("/games");',
        'export const listen = () => new EventSource("/games/x/stream");',
        'export const load = () => window.fetch("/games");',
    ],
)
def test_a_page_script_reaches_the_service_only_through_transport_js(code):
    """One transport (transport.js: the token, the headers, 429's retry, the problem document,
    the stream's resumption) for every page: a script's own request is refused."""
    messages = _lint_as_a_page_script(code)
    assert len(messages) == 1 and "transport.js" in messages[0]["message"], messages


def test_transport_js_itself_may_request():
    result = _eslint(
        "--stdin",
        "--stdin-filename",
        "service/web/transport.js",
        "--format",
        "json",
        stdin='export const f = () => fetch("/x");\n',
    )
    assert [m for file in json.loads(result.stdout) for m in file["messages"]] == []
