from simkit.cli import main

main()
