"""The spectator's page: static HTML, CSS and JavaScript modules, which a relay's web listener serves
(:mod:`relay.page`). No Python runs here: this file only makes the folder a package, so that an installed olixono
carries the page's files and finds them."""
