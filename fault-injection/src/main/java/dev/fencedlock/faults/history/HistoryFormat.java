package dev.fencedlock.faults.history;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The text form in which a client process hands its history to the test: one record a line,
 * fields separated by tabs. Lock names cannot contain tabs or line breaks (they are control
 * characters, which lock names refuse), and the other text fields are checked or cleaned on the way
 * in, so no escaping is needed.
 *
 * <pre>
 * section  lock  client  token  acquireStart  enter  lastValid  exit  lost
 * write    counter  client  attempt  token  outcome  atNanos  detail
 * </pre>
 */
final class HistoryFormat {
    private static final String SECTION = "section";
    private static final String WRITE = "write";

    private HistoryFormat() {}

    static void write(History history, Path file) throws IOException {
        try (BufferedWriter out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            for (CriticalSection s : history.sections()) {
                out.write(String.join(
                        "\t",
                        SECTION,
                        s.lock(),
                        s.client(),
                        Long.toString(s.token()),
                        Long.toString(s.acquireStartNanos()),
                        Long.toString(s.enterNanos()),
                        Long.toString(s.lastValidNanos()),
                        Long.toString(s.exitNanos()),
                        Boolean.toString(s.lost())));
                out.newLine();
            }
            for (FencedWrite w : history.writes()) {
                out.write(String.join(
                        "\t",
                        WRITE,
                        w.counter(),
                        w.client(),
                        w.attempt(),
                        Long.toString(w.token()),
                        w.outcome().name(),
                        Long.toString(w.atNanos()),
                        w.detail()));
                out.newLine();
            }
        }
    }

    static History read(Path file) throws IOException {
        List<CriticalSection> sections = new ArrayList<>();
        List<FencedWrite> writes = new ArrayList<>();
        int number = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            number++;
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            try {
                if (f[0].equals(SECTION) && f.length == 9) {
                    sections.add(new CriticalSection(
                            f[1],
                            f[2],
                            Long.parseLong(f[3]),
                            Long.parseLong(f[4]),
                            Long.parseLong(f[5]),
                            Long.parseLong(f[6]),
                            Long.parseLong(f[7]),
                            Boolean.parseBoolean(f[8])));
                } else if (f[0].equals(WRITE) && f.length == 8) {
                    writes.add(new FencedWrite(
                            f[1],
                            f[2],
                            f[3],
                            Long.parseLong(f[4]),
                            WriteOutcome.valueOf(f[5]),
                            f[7],
                            Long.parseLong(f[6])));
                } else {
                    throw new IllegalArgumentException("unknown record or wrong field count");
                }
            } catch (IllegalArgumentException e) {
                throw new IOException(file + " line " + number + " is not a history record: " + e.getMessage(), e);
            }
        }
        return new History(sections, writes);
    }

    /**
     * @throws IllegalArgumentException if {@code value} is null, empty or has control characters
     */
    static String requirePlain(String field, String value) {
        if (value == null || value.isEmpty() || value.chars().anyMatch(Character::isISOControl)) {
            throw new IllegalArgumentException(field + " must be non-empty text without control characters, got '"
                    + (value == null ? null : plain(value)) + "'");
        }
        return value;
    }

    /** {@code text} with every control character replaced by a space. */
    static String plain(String text) {
        return text.replaceAll("\\p{Cntrl}", " ");
    }
}
