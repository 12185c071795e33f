"""The outputs of Lecture 18 notes (J. Sorrell): the transfer theorem and the Monitor argument."""
