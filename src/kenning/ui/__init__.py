"""``kenning ui``: a local web window onto one home's memory.

Server-rendered pages (Starlette, Jinja2 templates, htmx shipped in
``static/``), charts drawn as inline SVG on the server, nothing fetched from
anywhere else. Every page reads and writes through Kenning's own stores, as
the CLI does:

- :mod:`.app` the application: routes, templates, the one-at-a-time worker;
- :mod:`.security` loopback, the per-run token, CSRF, Host and Origin;
- :mod:`.dashboard`, :mod:`.memory_pages`, :mod:`.history_pages`,
  :mod:`.session_pages`, :mod:`.skill_pages`, :mod:`.journal_pages` the pages;
- :mod:`.charts` the SVG charts.
"""
