package dev.fencedlock.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** An unfenced entity that a fenced {@link Item} refers to through a collection table. */
@Entity
@Table(name = "note")
public class Note {
    @Id
    private long id;

    private String text;

    protected Note() {}

    public Note(long id, String text) {
        this.id = id;
        this.text = text;
    }
}
