"""The modes' own printables (`feltbank print NAME`), each named in its mode's record
(`Mode.printables`): a function `(out, lang, pages) -> str` that writes the PDF and says
what it wrote. The CLI lists and calls them through the registry; it names no mode.
"""
