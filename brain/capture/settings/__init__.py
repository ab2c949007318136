"""Settings read by file format: what a configuration file sets, as key -> value (formats.read_settings).

One small reader per format family, each tolerant of fragments (an Edit's old and new text) as well as whole
files: what people configure changes in those files, whatever words the conversation used about it. Pure
functions, standard library only.
"""
