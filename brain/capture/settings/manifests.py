"""Package manifests: which dependency at which version (and the language or toolchain version they pin).

package.json and Cargo.toml read as the JSON and TOML they are; the rest here:
- requirements*.txt / constraints*.txt: `celery==5.3.6` (an exact pin's `==` dropped), `arq>=0.25`;
- pyproject.toml: its TOML, with PEP 621's lists of requirements (`project.dependencies`, optional and group
  dependencies) one key a package (`project.dependencies.celery`);
- Gemfile: `gem "rails", "~> 7.1"` (`gem rails`), `ruby "3.3.0"`;
- go.mod: `go 1.22`, `toolchain go1.22.1`, `require` lines and blocks (`require github.com/x/y`);
- mix.exs: `{:phoenix, "~> 1.7.10"}` (`deps.phoenix`), `elixir: "~> 1.15"`, `version: "0.1.0"`;
- build.gradle(.kts): `implementation("group:artifact:1.2.3")` (`implementation group:artifact`), plugins with
  a version (`plugin org.springframework.boot`), `jvmToolchain(17)`, `languageVersion = JavaLanguageVersion.of(21)`,
  an assignment inside a block (`jib.from.image`);
- MSBuild projects (.csproj, .fsproj, .vbproj, Directory.*.props): `<PackageReference Include="Serilog"
  Version="3.1.1" />` (`PackageReference Serilog`), central `<PackageVersion ...>`, and a property written on one
  line (`<TargetFramework>net8.0</TargetFramework>`).
"""
import re

from brain.capture.settings.lines import clean_value, read_braced
from brain.capture.settings.toml_text import read_toml

_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*((?:[=<>!~]=?|===)\s*[^;#\s][^;#]*)?")
_REQUIREMENT_LISTS = ("project.dependencies", "build-system.requires")
_REQUIREMENT_GROUPS = ("project.optional-dependencies.", "dependency-groups.")


def requirement(text: str):
    """(name, version spec) of a requirement line or string (`celery==5.3.6` -> ("celery", "5.3.6")), or None."""
    text = text.strip().strip("\"'")
    if not text or text.startswith(("-", "#", "git+", "http", ".", "/")):
        return None
    m = _REQUIREMENT.match(text)
    if not m:
        return None
    spec = (m.group(2) or "").replace(" ", "")
    return m.group(1), spec[2:] if spec.startswith("==") and "," not in spec else spec


def read_requirements(text: str) -> dict:
    out = {}
    for line in text.splitlines():
        found = requirement(line.split(" #", 1)[0])
        if found and found[1]:
            out[found[0]] = found[1]
    return out


def read_pyproject(text: str) -> dict:
    out = {}
    for key, value in read_toml(text).items():
        if isinstance(value, tuple) and (key in _REQUIREMENT_LISTS or key.startswith(_REQUIREMENT_GROUPS)):
            for item in value:
                found = requirement(item)
                if found:
                    out[f"{key}.{found[0]}"] = found[1] or "*"
        else:
            out[key] = value
    return out


# Ruby's manifests: a line calling a method with a name and a version; the key is the method and the name
_GEMFILE_LINES = ((re.compile(r"""^\s*(gem)\s+["']([\w.-]+)["']\s*,\s*["']([^"']+)["']"""), "{} {}"),
                  (re.compile(r"""^\s*(ruby)\s+["']([^"']+)["']"""), "{}"))
_PODFILE_LINES = ((re.compile(r"""^\s*(pod)\s+["']([\w./+-]+)["']\s*,\s*["']([^"']+)["']"""), "{} {}"),
                  (re.compile(r"""^\s*(platform)\s+:(\w+)\s*,\s*["']([^"']+)["']"""), "{} {}"))


def _ruby_lines(text: str, forms) -> dict:
    """key -> version of the lines of `text` one of `forms` ((pattern, key format over all groups but the last))
    matches."""
    out = {}
    for line in text.splitlines():
        for pattern, key in forms:
            m = pattern.match(line)
            if m:
                out[key.format(*m.groups()[:-1])] = m.groups()[-1]
    return out


def read_gemfile(text: str) -> dict:
    return _ruby_lines(text, _GEMFILE_LINES)


def read_podfile(text: str) -> dict:
    """CocoaPods' Podfile: `platform :ios, '13.0'` (the deployment target) and `pod 'Name', '1.2'`."""
    return _ruby_lines(text, _PODFILE_LINES)


_GO_DIRECTIVE = re.compile(r"^\s*(go|toolchain)\s+(\S+)\s*$")
_GO_REQUIRE = re.compile(r"^\s*(?:require\s+)?([\w.-]+\.[a-z]{2,}/[\w./-]+)\s+(v\d\S*)")


def read_go_mod(text: str) -> dict:
    out = {}
    for line in text.splitlines():
        line = line.split("//", 1)[0]
        m = _GO_DIRECTIVE.match(line)
        if m:
            out[m.group(1)] = m.group(2)
            continue
        m = _GO_REQUIRE.match(line)
        if m:
            out[f"require {m.group(1)}"] = m.group(2)
    return out


_MIX_DEP = re.compile(r"""\{\s*:([a-z_][\w]*)\s*,\s*"([^"]+)\"""")
_MIX_FIELD = re.compile(r"""(?:^|[\[,])\s*(elixir|version|app):\s*("[^"]*"|:[\w]+)""")


def read_mix_exs(text: str) -> dict:
    out = {}
    for line in text.splitlines():
        for m in _MIX_DEP.finditer(line):
            out[f"deps.{m.group(1)}"] = m.group(2)
        for m in _MIX_FIELD.finditer(line):
            out[m.group(1)] = m.group(2).strip('"').lstrip(":")
    return out


_GRADLE_DEPENDENCY = re.compile(r"""^\s*(implementation|api|compileOnly|runtimeOnly|testImplementation|"""
                                r"""kapt|ksp|annotationProcessor|classpath)\s*\(?\s*["']"""
                                r"""([\w.-]+:[\w.-]+):([^"':]+)["']""")
_GRADLE_PLUGIN = re.compile(r"""^\s*(?:id\s*\(?\s*["']([\w.-]+)["']\s*\)?|kotlin\s*\(\s*["']([\w.-]+)["']\s*\))"""
                            r"""\s+version\s+["']([^"']+)["']""")
_GRADLE_CALL = re.compile(r"""^\s*(jvmToolchain)\s*\(\s*(\d+)\s*\)""")
_GRADLE_OF = re.compile(r"""^\s*([A-Za-z][\w.]*)\s*(?:=|\.set\()\s*\w+\.of\(\s*(\d+)\s*\)""")
_GRADLE_ASSIGN = re.compile(r"""^\s*(version|group|sourceCompatibility|targetCompatibility)\s*=\s*(["'][^"']+["']|"""
                            r"""JavaVersion\.VERSION_\w+)""")
# Android's settings, Groovy (`targetSdkVersion 34`, `minSdk 23`) or Kotlin (`targetSdk = 34`): a property given a
# literal on its own line, inside the android block's parts
_GRADLE_PROPERTY = re.compile(r"""^\s*((?:compile|min|target)Sdk(?:Version)?|versionCode|versionName|"""
                              r"""applicationId|namespace|ndkVersion|multiDexEnabled|minifyEnabled|isMinifyEnabled)"""
                              r"""\s*(?:=\s*|\s)\s*(\d+|"[^"\n]*"|'[^'\n]*'|true|false)\s*$""")


def read_gradle(text: str) -> dict:
    out = {}
    for line in text.splitlines():
        m = _GRADLE_DEPENDENCY.match(line)
        if m:
            out[f"{m.group(1)} {m.group(2)}"] = m.group(3)
            continue
        m = _GRADLE_PLUGIN.match(line)
        if m:
            name = m.group(1) or f"kotlin {m.group(2)}"
            out[f"plugin {name}"] = m.group(3)
            continue
        for pattern in (_GRADLE_CALL, _GRADLE_OF, _GRADLE_ASSIGN, _GRADLE_PROPERTY):
            m = pattern.match(line)
            if m:
                value = clean_value(m.group(2))
                if value is not None:
                    out[m.group(1)] = value
                break
    # an assignment inside a plugin's block (`jib { from { image = "eclipse-temurin:21-jre" } }`), unless read above
    for key, value in read_braced(text).items():
        if "." in key and key.rsplit(".", 1)[-1] not in out:
            out.setdefault(key, value)
    return out


_MSBUILD_ITEM = re.compile(r"<(PackageReference|PackageVersion|GlobalPackageReference)\b([^>]*)>")
_XML_ATTRIBUTE = re.compile(r'(?<![A-Za-z])([A-Za-z]+)\s*=\s*"([^"]*)"')
_MSBUILD_PROPERTY = re.compile(r"^\s*<([A-Za-z][\w.-]*)>([^<>]{1,120})</\1>\s*$")


def _item_attributes(m) -> tuple:
    """(package, version or None) of an MSBuild package item's match."""
    attributes = dict(_XML_ATTRIBUTE.findall(m.group(2)))
    return attributes.get("Include") or attributes.get("Update"), attributes.get("Version")


def msbuild_packages(text: str) -> list:
    """The packages an MSBuild project's items name, in order."""
    return [name for name, _ in map(_item_attributes, _MSBUILD_ITEM.finditer(text)) if name]


def read_msbuild(text: str) -> dict:
    """An MSBuild project's package versions (`PackageReference NAME`) and its one-line properties."""
    out, item = {}, None  # item: the package element a line is inside (its metadata is no property)
    for line in text.splitlines():
        m = _MSBUILD_ITEM.search(line)
        if m:
            name, version = _item_attributes(m)
            if name and version:
                out[f"{m.group(1)} {name}"] = version
            item = None if m.group(0).endswith("/>") else m.group(1)
            continue
        if item:
            item = None if f"</{item}" in line else item
            continue
        m = _MSBUILD_PROPERTY.match(line)
        if m:
            value = clean_value(m.group(2).strip())
            if value is not None:
                out[m.group(1)] = value
    return out
