"""Drawing helpers shared by the games' pictures: ``raster`` (numpy drawing primitives and
the ``human`` window), ``status`` (the status band and the frames of a recording) and ``svg``
(the SVG picture with its status band). Each game draws its own board (``render.py``,
``svg.py``)."""
