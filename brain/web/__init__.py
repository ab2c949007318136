"""The local page (`rlm-mem serve`): memory shown in a browser and tended through the library's own calls."""
