package dev.fencedlock.faults.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FaultMatrixTest {
    @TempDir
    Path dir;

    @AfterEach
    void clear() {
        System.clearProperty("faults.matrix.dir");
    }

    private static MatrixRow row(String id, long overlaps) {
        return new MatrixRow(id, "a fault: with | a bar?", "redlock", 3, 10, overlaps, 1, 2, 4, 0, 0, "-", "notes");
    }

    @Test
    void fragmentsReadBackInIdOrderAndLaterRowsReplaceEarlierOnes() throws IOException {
        System.setProperty("faults.matrix.dir", dir.toString());
        FaultMatrix.record(row("2-second", 1));
        FaultMatrix.record(row("1-first", 5));
        FaultMatrix.record(row("2-second", 7));

        List<MatrixRow> rows = FaultMatrix.read(dir);

        assertThat(rows).extracting(MatrixRow::id).containsExactly("1-first", "2-second");
        assertThat(rows.get(1)).isEqualTo(row("2-second", 7));
    }

    @Test
    void theTableHasOneLinePerRowAfterTheHeader() {
        String table = FaultMatrix.table(List.of(row("1-first", 5)));

        assertThat(table.lines()).hasSize(3);
        assertThat(table.lines().toList().get(2))
                .startsWith("| 1-first | a fault: with \\| a bar? | redlock | 3 | 10 | 5 (1) | 2 | 4 | 0 | 0 |");
    }

    @Test
    void mainWritesTheAssembledTable() throws IOException {
        System.setProperty("faults.matrix.dir", dir.toString());
        FaultMatrix.record(row("1-first", 5));
        Path out = dir.resolve("out.md");

        FaultMatrix.main(new String[] {dir.toString(), out.toString()});

        assertThat(Files.readString(out)).contains("from 1 fragments").contains("| 1-first |");
    }
}
