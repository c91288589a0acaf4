from fedbounds.app.entry import main

main()
