-- A music store (SQLite). Names keep their case; they are compared case-insensitively.
PRAGMA foreign_keys = ON;

CREATE TABLE Artists (
    ArtistId INTEGER PRIMARY KEY AUTOINCREMENT,
    Name     NVARCHAR(120) NOT NULL
);

CREATE TABLE Albums (
    AlbumId  INTEGER PRIMARY KEY AUTOINCREMENT,
    Title    NVARCHAR(160) NOT NULL,
    ArtistId INTEGER NOT NULL REFERENCES artists (artistid)
);

CREATE TABLE Tracks (
    TrackId      INTEGER PRIMARY KEY AUTOINCREMENT,
    Name         TEXT NOT NULL,
    AlbumId      INTEGER REFERENCES Albums (AlbumId) ON DELETE SET NULL,
    Milliseconds INTEGER NOT NULL,
    UnitPrice    NUMERIC(10, 2) NOT NULL DEFAULT 0.99,
    Notes
);

CREATE TABLE PlaylistTrack (
    PlaylistId INTEGER NOT NULL REFERENCES Playlists,
    TrackId    INTEGER NOT NULL,
    PRIMARY KEY (PlaylistId, TrackId),
    FOREIGN KEY (TrackId) REFERENCES Tracks (TrackId)
);

CREATE TABLE Playlists (
    PlaylistId INTEGER PRIMARY KEY,
    Name       TEXT
);

CREATE INDEX IFK_TrackAlbumId ON Tracks (AlbumId);

CREATE VIEW AlbumTracks AS
SELECT al.Title AS Album, t.*
FROM Albums al JOIN Tracks t ON t.AlbumId = al.AlbumId;

INSERT INTO Artists (Name) VALUES ('AC/DC'), ('Accept');
