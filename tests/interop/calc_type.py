"""Type into a workbook with LibreOffice Calc as a user does, then save it: run by the system Python (python3-uno).

Usage: python3 calc_type.py IN OUT FORMAT SHEET CELL=TEXT [CELL=TEXT ...]

Starts a headless soffice of its own (a private profile, a pipe connection), opens IN, types each TEXT into
its cell through the dispatcher's `.uno:EnterString` (what Calc does with keyboard input: a typed 10% becomes a
percentage in a General cell, a typed 1/2 a date), then stores the document as OUT with the filter FORMAT
("Calc Office Open XML", "calc8", or "Text - txt - csv (StarCalc)" with its options after a colon).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

import uno
from com.sun.star.beans import PropertyValue


def prop(name, value):
    p = PropertyValue()
    p.Name, p.Value = name, value
    return p


def main():
    src, out, fmt, sheet_name, *edits = sys.argv[1:]
    profile = tempfile.mkdtemp(prefix="lo-profile-")
    pipe = "clinreg" + uuid.uuid4().hex
    proc = subprocess.Popen(["soffice", "--headless", "--invisible", "--nologo", "--norestore",
                             f"-env:UserInstallation=file://{profile}", f"--accept=pipe,name={pipe};urp;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        for _ in range(120):
            try:
                ctx = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
                break
            except Exception:  # noqa: BLE001 - UNO raises its own types until the office listens
                time.sleep(0.5)
        else:
            sys.exit("soffice did not start")
        desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        doc = desktop.loadComponentFromURL(uno.systemPathToFileUrl(os.path.abspath(src)), "_blank", 0,
                                           (prop("Hidden", True),))
        dispatcher = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.DispatchHelper", ctx)
        frame = doc.getCurrentController().getFrame()
        sheets = doc.getSheets()
        sheet = sheets.getByName(sheet_name) if sheets.hasByName(sheet_name) else sheets.getByIndex(0)
        doc.getCurrentController().setActiveSheet(sheet)
        for edit in edits:
            cell, text = edit.split("=", 1)
            dispatcher.executeDispatch(frame, ".uno:GoToCell", "", 0, (prop("ToPoint", cell),))
            dispatcher.executeDispatch(frame, ".uno:EnterString", "", 0, (prop("StringName", text),))
        name, _, options = fmt.partition(":")
        args = [prop("FilterName", name)] + ([prop("FilterOptions", options)] if options else [])
        doc.storeToURL(uno.systemPathToFileUrl(os.path.abspath(out)), tuple(args))
        try:
            doc.close(True)
        except Exception:  # noqa: BLE001 - the office may already be going away; the file is stored
            pass
    finally:
        try:
            desktop.terminate()
        except Exception:  # noqa: BLE001 - the office may already be gone
            pass
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
