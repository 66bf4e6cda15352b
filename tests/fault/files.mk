# tests/fault/: faults injected into the store's I/O for tests/e2e/iofault-e2e.
# iofault.so: an LD_PRELOAD shim failing the Nth write or sync of the store's
# files (or every one while a file exists) with EIO or ENOSPC.
$(BUILD)/plain/lab/iofault.so: tests/fault/iofault.c
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(CSTD) $(OPT) $(WARN) -fPIC -shared -o $@ $< -ldl
lab-progs: $(BUILD)/plain/lab/iofault.so
# storefault: the daemon's calls on the store (open, cycles of results and
# states, alerts, the idle tick's flush), then what it holds read back
LAB_PROGS += storefault
storefault_SRCS = tests/fault/storefault.c tests/unit/storegen.c $(DB_SRCS) $(PURE_SRCS)
storefault_LIBS = $(shell pkg-config --libs sqlite3 2>/dev/null) -lm -lpthread
