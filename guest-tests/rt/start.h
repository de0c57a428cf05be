/*
 * start: the process entry point.  The kernel jumps to _start with argc,
 * argv and envp on the stack; _start calls main() and exits with its value.
 */
#ifndef GT_START_H
#define GT_START_H

int main(int argc, char **argv, char **envp);

#endif
