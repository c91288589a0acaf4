from fedbounds.app.cli import main

main()
