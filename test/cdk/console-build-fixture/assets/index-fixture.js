document.title = "console build fixture";
