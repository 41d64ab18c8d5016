"""The ONOS applications as `onos-app install` receives them: the built .oar files, their
app.xml, and the OSGi manifests of the bundles inside (what Karaf resolves at install time)."""
import json
import re
import xml.etree.ElementTree as ET
import zipfile
from io import BytesIO

import openapi_spec_validator
import pytest

from conftest import ROOT

VERSION = "0.1.0-SNAPSHOT"


def oar(module, artifact):
    path = ROOT / module / "target" / f"{artifact}-{VERSION}.oar"
    assert path.exists(), f"{path} is missing: `make build` packages it"
    return zipfile.ZipFile(path)


def manifest(jar_bytes):
    text = zipfile.ZipFile(BytesIO(jar_bytes)).read("META-INF/MANIFEST.MF").decode()
    headers, key = {}, None
    for line in text.splitlines():
        if line.startswith(" ") and key:
            headers[key] += line[1:]
        elif ":" in line:
            key, value = line.split(":", 1)
            headers[key] = value.strip()
    return headers


@pytest.mark.parametrize("module,artifact,name,requires", [
    ("pipeconf", "nat64fabric-pipeconf", "org.nat64fabric.pipeconf",
     {"org.onosproject.drivers.p4runtime", "org.onosproject.drivers.bmv2"}),
    ("app", "nat64fabric-app", "org.nat64fabric.app", {"org.nat64fabric.pipeconf"}),
])
def test_oar_declares_the_app_and_the_apps_it_needs(module, artifact, name, requires):
    z = oar(module, artifact)
    app = ET.fromstring(z.read("app.xml"))
    assert app.get("name") == name
    assert app.get("version") == VERSION
    assert set(app.get("apps").split(",")) == requires
    jar = f"m2/org/nat64fabric/{artifact}/{VERSION}/{artifact}-{VERSION}.jar"
    features = ET.fromstring(z.read(f"m2/org/nat64fabric/{artifact}/{VERSION}/{artifact}-{VERSION}-features.xml"))
    bundles = [b.text for b in features.iter() if b.tag.endswith("bundle")]
    assert f"mvn:org.nat64fabric/{artifact}/{VERSION}" in bundles
    headers = manifest(z.read(jar))
    assert headers["Bundle-SymbolicName"] == name
    # Every ONOS package is imported at the 2.7 API: the bundle resolves on ONOS 2.7.x only.
    onos = re.findall(r'(org\.onosproject\.[\w.]+);version="([^"]+)"', headers["Import-Package"])
    assert onos and all(v == "[2.7,3)" for _, v in onos), onos
    assert "org.nat64fabric.core" not in headers["Import-Package"], "core is embedded, not imported"


def test_pipeconf_bundle_carries_the_pipeline_and_registers_its_components():
    z = oar("pipeconf", "nat64fabric-pipeconf")
    jar_bytes = z.read(f"m2/org/nat64fabric/nat64fabric-pipeconf/{VERSION}/nat64fabric-pipeconf-{VERSION}.jar")
    jar = zipfile.ZipFile(BytesIO(jar_bytes))
    names = set(jar.namelist())
    assert {"p4/p4info.txt", "p4/device_config.bin", "softswitch-drivers.xml", "cpu_port.txt"} <= names
    assert jar.read("p4/p4info.txt") == (ROOT / "p4" / "build" / "p4info.txt").read_bytes(), \
        "the pipeconf ships the P4Info `make p4` compiled from p4/nat64.p4"
    assert ("p4/nat64.json" in names) == (ROOT / "p4" / "build" / "nat64.json").exists(), \
        "BMv2 JSON exactly when p4c produced it"
    components = manifest(jar_bytes)["Service-Component"]
    assert "PipeconfLoader" in components and "SoftswitchDriversLoader" in components


def app_jar():
    z = oar("app", "nat64fabric-app")
    return z.read(f"m2/org/nat64fabric/nat64fabric-app/{VERSION}/nat64fabric-app-{VERSION}.jar")


def test_app_bundle_embeds_core_and_accepts_the_guava_onos_ships():
    jar_bytes = app_jar()
    names = set(zipfile.ZipFile(BytesIO(jar_bytes)).namelist())
    assert "WEB-INF/classes/org/nat64fabric/core/engine/Nat64Engine.class" in names
    assert "WEB-INF/classes/org/nat64fabric/core/p4/P4InfoConstants.class" in names
    guava = re.findall(r'com\.google\.common\.[\w.]+;version="\[([\d.]+),', manifest(jar_bytes)["Import-Package"])
    assert guava and all(float(v.split(".")[0]) <= 22 for v in guava), "ONOS 2.7 runs Guava 22"


def test_app_bundle_serves_the_rest_api_with_its_swagger_page():
    jar_bytes = app_jar()
    jar = zipfile.ZipFile(BytesIO(jar_bytes))
    headers = manifest(jar_bytes)
    assert headers["Web-ContextPath"] == "/onos/nat64fabric"
    assert headers["Bundle-ClassPath"] == "WEB-INF/classes"
    assert "org.glassfish.jersey.servlet" in headers["Import-Package"], "web.xml names Jersey's servlet"
    web = ET.fromstring(jar.read("WEB-INF/web.xml"))
    application = [p.text for p in web.iter() if p.tag.endswith("param-value")]
    assert application == ["org.nat64fabric.app.rest.Nat64WebApplication"]
    assert "WEB-INF/classes/org/nat64fabric/app/rest/Nat64WebApplication.class" in jar.namelist()
    # Every endpoint of core's resource is in the generated swagger.json, and nothing else.
    source = (ROOT / "core/src/main/java/org/nat64fabric/core/rest/Nat64Resource.java").read_text()
    endpoints = set(re.findall(r'@(GET|POST|DELETE)\s+@Path\("([^"]+)"\)', source))
    swagger = json.loads(jar.read("WEB-INF/classes/apidoc/swagger.json"))
    assert swagger["basePath"] == "/onos/nat64fabric"
    documented = {(verb.upper(), path.lstrip("/")) for path, ops in swagger["paths"].items() for verb in ops}
    assert documented == endpoints and len(endpoints) == 13
    openapi_spec_validator.validate(swagger)   # Swagger 2.0, as ONOS's API docs page reads it
    # The same description, built in core, is what the resource serves at /swagger.json in both runtimes.
    assert json.loads(jar.read("WEB-INF/classes/org/nat64fabric/core/rest/swagger.json"))["paths"] == swagger["paths"]
    components = headers["Service-Component"]
    assert "org.nat64fabric.app.Nat64Manager" in components
    assert "org.nat64fabric.app.rest.ApiDocRegistrator" in components, "registers the swagger page with ONOS"


def test_app_bundle_registers_its_cli_commands():
    jar_bytes = app_jar()
    names = set(zipfile.ZipFile(BytesIO(jar_bytes)).namelist())
    assert manifest(jar_bytes)["Karaf-Commands"] == "org.nat64fabric.app.cli"
    cli = ROOT / "app/src/main/java/org/nat64fabric/app/cli"
    commands = {}
    for f in cli.glob("*Command.java"):
        name = re.search(r'name = "(nat64-[\w-]+)"', f.read_text())
        if name:
            commands[name.group(1)] = f.stem
    assert set(commands) == {"nat64-eamt", "nat64-eamt-add", "nat64-eamt-remove", "nat64-bib", "nat64-bib-add",
                             "nat64-bib-remove", "nat64-sessions", "nat64-pools", "nat64-stats", "nat64-devices"}
    for cls in commands.values():
        assert f"WEB-INF/classes/org/nat64fabric/app/cli/{cls}.class" in names


def test_app_bundle_carries_its_gui_pages():
    """The legacy GUI reads css.html, js.html and app/view/VIEW/* through the bundle's class path."""
    jar_bytes = app_jar()
    jar = zipfile.ZipFile(BytesIO(jar_bytes))
    names = set(jar.namelist())
    headers = manifest(jar_bytes)
    classes = headers["Bundle-ClassPath"] + "/"
    pages = {classes + p for p in ("css.html", "js.html", "app/view/nat64/nat64.html", "app/view/nat64/nat64.js",
                                   "app/view/nat64/nat64.css", "app/view/nat64Topov/nat64Topov.js")}
    assert pages <= names, pages - names
    loaded = re.findall(r'(?:src|href)="([^"]+)"',
                        jar.read(classes + "js.html").decode() + jar.read(classes + "css.html").decode())
    assert loaded and all(classes + p in names for p in loaded), loaded
    assert "org.nat64fabric.app.gui.Nat64Gui" in headers["Service-Component"]
    imports = headers["Import-Package"]
    assert all(f"{p};" in imports for p in ("org.onosproject.ui", "org.onosproject.ui.table", "org.onosproject.ui.topo"))
    # Indirect counters are read with the device's P4Runtime client, which the pipeconf's drivers bring.
    assert "org.onosproject.p4runtime.api;" in imports
