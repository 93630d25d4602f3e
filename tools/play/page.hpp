// The playground's one page (page.html, built into the program: nothing is read from disk or
// from the internet while it runs).
#pragma once

namespace play {

extern const char* const kPage;

}  // namespace play
