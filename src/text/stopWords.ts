/**
 * Function words that carry no topic, in the normalised form of `normalizeForIndex` (Arabic without
 * hamza on alef, waw or ya, ta marbuta as ha, alef maqsura as ya).
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  // English
  ...'a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours out over own same she should so some such than that the their theirs them themselves then there these they this those through to too under until up very was we were what when where which while who whom why will with would you your yours yourself also may might must shall per its via within without upon among every'.split(
    ' ',
  ),
  // Arabic
  ...'في من الى علي عن مع هذا هذه ذلك تلك التي الذي الذين اللذين اللتين هو هي هم هن انا نحن انت انتم كان كانت يكون تكون ان او ثم قد لقد لا لم لن ما ماذا متي اين كيف كل بعض غير بين عند حتي اذا اذ لكن بل ايضا و ف ب ل ك به بها له لها فيه فيها منه منها عليه عليها اليه هناك هنا حيث كما مثل بعد قبل خلال حول دون ضمن لدي الي وهو وهي وفي ومن وقد ولا وان التي'.split(
    ' ',
  ),
]);

/**
 * Stop words left out of full-text queries that match any term (the read stores' `any` mode). The
 * particles of phrasal verbs stay in: in technical text "set up", "back up", "shut down", "log out"
 * and "turn off" name operations (the retrieval evaluation ranks better with them kept).
 */
export const SEARCH_STOP_WORDS: ReadonlySet<string> = new Set(
  [...STOP_WORDS].filter((word) => !['up', 'down', 'out', 'off'].includes(word)),
);
