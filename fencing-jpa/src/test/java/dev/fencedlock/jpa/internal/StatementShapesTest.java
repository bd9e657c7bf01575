package dev.fencedlock.jpa.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StatementShapesTest {
    private static final String VERSIONED_UPDATE = "update item set quantity=?, version=? where id=? and version=?";
    private static final String UNVERSIONED_UPDATE = "update item set quantity=? where id=?";

    @Test
    void aRememberedShapeAnswersAsAFreshReadingDoes() {
        StatementShapes shapes = new StatementShapes();
        for (int i = 0; i < 3; i++) {
            assertThat(shapes.of(VERSIONED_UPDATE).writtenTables()).contains("item");
            assertThat(shapes.of(VERSIONED_UPDATE).updatesLeavingVersion("item", "version", null))
                    .isFalse();
            assertThat(shapes.of(UNVERSIONED_UPDATE).updatesLeavingVersion("item", "version", null))
                    .isTrue();
            assertThat(shapes.of(UNVERSIONED_UPDATE).updatesLeavingVersion("item", "quantity", null))
                    .as("asked about another column, the same text gets its own answer")
                    .isFalse();
            assertThat(shapes.of("select quantity from item where id=?").writtenTables())
                    .isEmpty();
        }
        assertThat(shapes.of(VERSIONED_UPDATE)).isSameAs(shapes.of(VERSIONED_UPDATE));
        assertThat(shapes.size()).isEqualTo(3);
    }

    @Test
    void textsBeyondTheCapacityAreReadEachTimeAndNotKept() {
        StatementShapes shapes = new StatementShapes();
        for (int i = 0; i < StatementShapes.CAPACITY + 100; i++) {
            assertThat(shapes.of("delete from item where id=" + i).writtenTables())
                    .contains("item");
        }
        assertThat(shapes.size()).isEqualTo(StatementShapes.CAPACITY);
        String late = "update item set quantity=1 where id=1";
        assertThat(shapes.of(late).updatesLeavingVersion("item", "version", null))
                .isTrue();
        assertThat(shapes.of(late)).isNotSameAs(shapes.of(late));
    }
}
